package org.apache.flink.table.planner.loader;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.delegation.Planner;
import org.apache.flink.table.delegation.PlannerFactory;

import java.net.URL;
import java.util.Collections;
import java.util.Set;

/**
 * StreamFusion's stand-in for the planner loader's factory, for a Flink distribution as shipped
 * ({@code lib/flink-table-planner-loader-*.jar}, the planner in its own class loader). Flink finds
 * planner factories only by the identifier "default" and the class names its jars list, and two
 * factories with one identifier are an error, so the StreamFusion jar, which sorts before the
 * loader jar in {@code lib/}, provides this class under the loader's name (see
 * docs/architecture.md, "Install and run", for the alternatives). It adds the StreamFusion jar to
 * the planner's class loader, where StreamFusion's planner sees Flink's, and creates the planner
 * with StreamFusion's factory from there; {@code streamfusion.enabled: false} gives stock
 * behaviour.
 */
public final class DelegatePlannerFactory implements PlannerFactory {
    private static final String NATIVE_FACTORY = "io.streamfusion.planner.NativePlannerFactory";

    /** StreamFusion's factory, loaded once per process by the planner's class loader. */
    private static PlannerFactory nativeFactory;

    @Override
    public String factoryIdentifier() {
        return PlannerFactory.DEFAULT_IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Collections.emptySet();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Collections.emptySet();
    }

    @Override
    public Planner create(Context context) {
        return nativeFactory().create(context);
    }

    private static synchronized PlannerFactory nativeFactory() {
        if (nativeFactory == null) {
            PlannerModule planner = PlannerModule.getInstance();
            URL streamFusionJar =
                    DelegatePlannerFactory.class
                            .getProtectionDomain()
                            .getCodeSource()
                            .getLocation();
            planner.addUrlToClassLoader(streamFusionJar);
            try {
                nativeFactory =
                        (PlannerFactory)
                                Class.forName(
                                                NATIVE_FACTORY,
                                                true,
                                                planner.getSubmoduleClassLoader())
                                        .getDeclaredConstructor()
                                        .newInstance();
            } catch (ReflectiveOperationException | LinkageError e) {
                throw new TableException(
                        "StreamFusion could not load its planner from "
                                + streamFusionJar
                                + " into Flink's planner class loader",
                        e);
            }
        }
        return nativeFactory;
    }
}
