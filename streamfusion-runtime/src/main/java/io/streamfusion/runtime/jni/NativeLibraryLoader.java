package io.streamfusion.runtime.jni;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;

/**
 * Loads libstreamfusion.so, from the build tree when {@code -Dstreamfusion.native.dir} names one,
 * otherwise from the jar (resources under {@code streamfusion/native/linux-x86_64/}, which also
 * hold the Arrow, protobuf and RocksDB libraries it links; all are extracted to one temporary
 * folder so that the library's {@code $ORIGIN} run path finds them, not whatever the host has).
 * RocksDB's library has no run path: the two libraries it needs that a host may lack are loaded
 * first, from that folder, so that the dynamic linker finds them loaded.
 */
final class NativeLibraryLoader {
    static final String DIR_PROPERTY = "streamfusion.native.dir";
    private static final String RESOURCE_DIR = "streamfusion/native/linux-x86_64/";
    private static final String[] LIBRARIES = {
        "libarrow.so.2200", "libprotobuf.so.32", "libstreamfusion.so"
    };

    private static boolean loaded;

    private NativeLibraryLoader() {}

    static synchronized void load() {
        if (loaded) {
            return;
        }
        String dir = System.getProperty(DIR_PROPERTY);
        Path library;
        if (dir != null && Files.exists(Paths.get(dir, "libstreamfusion.so"))) {
            library = Paths.get(dir, "libstreamfusion.so");
        } else {
            library = extractFromJar();
        }
        System.load(library.toAbsolutePath().toString());
        loaded = true;
    }

    private static Path extractFromJar() {
        ClassLoader loader = NativeLibraryLoader.class.getClassLoader();
        try {
            Path target = Files.createTempDirectory("streamfusion-native");
            target.toFile().deleteOnExit();
            for (String name : LIBRARIES) {
                try (InputStream in = loader.getResourceAsStream(RESOURCE_DIR + name)) {
                    if (in == null) {
                        throw new UnsatisfiedLinkError(
                                "StreamFusion native library "
                                        + name
                                        + " is neither in the jar nor in -D"
                                        + DIR_PROPERTY
                                        + "="
                                        + System.getProperty(DIR_PROPERTY)
                                        + " (build it with ./sf build)");
                    }
                    Path file = target.resolve(name);
                    Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                    file.toFile().deleteOnExit();
                }
            }
            return target.resolve("libstreamfusion.so");
        } catch (IOException e) {
            throw new UnsatisfiedLinkError("Cannot extract the StreamFusion native library: " + e);
        }
    }
}
