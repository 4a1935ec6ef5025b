package io.streamfusion.planner.convert;

import io.streamfusion.plan.SessionOptions;

import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;

import java.time.ZoneId;
import java.util.Locale;

/** What every converter reads: the query's table config, the planner's types, the session. */
public final class ConversionContext {
    private final TableConfig config;
    private final FlinkTypeFactory typeFactory;
    private final SessionOptions session;

    public ConversionContext(TableConfig config, FlinkTypeFactory typeFactory) {
        this.config = config;
        this.typeFactory = typeFactory;
        ZoneId zone = config.getLocalTimeZone();
        this.session =
                SessionOptions.newBuilder()
                        .setLocalTimeZone(zone.getId())
                        .setJavaFeatureVersion(Runtime.version().feature())
                        .setLegacyCastBehaviour(
                                config.get(ExecutionConfigOptions.TABLE_EXEC_LEGACY_CAST_BEHAVIOUR)
                                        .isEnabled())
                        .setDefaultLocale(Locale.getDefault().toLanguageTag())
                        .build();
    }

    public TableConfig config() {
        return config;
    }

    public FlinkTypeFactory typeFactory() {
        return typeFactory;
    }

    /** The session options every native plan carries (time zone, cast behaviour, locale). */
    public SessionOptions session() {
        return session;
    }
}
