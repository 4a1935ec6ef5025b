package io.streamfusion.planner;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A context class loader under which Flink's factory discovery finds {@link NativePlannerFactory}
 * where it would find Flink's DefaultPlannerFactory. It delegates every class to its parent; only
 * the Factory service listings that name Flink's planner factory are served with that one line
 * replaced, so there is exactly one "default" planner factory.
 */
final class PlannerFactoryClassLoader extends ClassLoader {
    private static final String SERVICES =
            "META-INF/services/org.apache.flink.table.factories.Factory";
    private static final String FLINK_FACTORY =
            "org.apache.flink.table.planner.delegation.DefaultPlannerFactory";
    private static final Map<URL, URL> REWRITTEN = new ConcurrentHashMap<>();

    PlannerFactoryClassLoader(ClassLoader parent) {
        super(parent);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        Enumeration<URL> resources = super.getResources(name);
        if (!SERVICES.equals(name)) {
            return resources;
        }
        List<URL> result = new ArrayList<>();
        while (resources.hasMoreElements()) {
            URL url = resources.nextElement();
            result.add(rewrite(url));
        }
        return Collections.enumeration(result);
    }

    private static URL rewrite(URL url) throws IOException {
        URL cached = REWRITTEN.get(url);
        if (cached != null) {
            return cached;
        }
        String content;
        try (InputStream in = url.openStream()) {
            content = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        URL result = url;
        if (content.contains(FLINK_FACTORY)) {
            Path file = Files.createTempFile("streamfusion-factories", ".txt");
            file.toFile().deleteOnExit();
            Files.writeString(
                    file, content.replace(FLINK_FACTORY, NativePlannerFactory.class.getName()));
            result = file.toUri().toURL();
        }
        REWRITTEN.put(url, result);
        return result;
    }
}
