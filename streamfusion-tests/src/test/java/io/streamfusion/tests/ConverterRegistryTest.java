package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamfusion.planner.convert.CalcConverter;
import io.streamfusion.planner.convert.ConverterRegistry;
import io.streamfusion.planner.convert.OperatorFamily;

import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecCalc;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGlobalGroupAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGlobalWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGroupAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGroupWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecIncrementalGroupAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecJoin;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecLocalGroupAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecLocalWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecRank;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecWatermarkAssigner;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecWindowAggregate;
import org.junit.jupiter.api.Test;

/** The planner finds operator families as services, and no node class has two converters. */
class ConverterRegistryTest {

    @Test
    void everyFamilyOnTheClassPathRegistersItsNodes() {
        ConverterRegistry registry = ConverterRegistry.load();
        for (Class<?> node :
                new Class<?>[] {
                    StreamExecCalc.class,
                    StreamExecWatermarkAssigner.class,
                    StreamExecGroupAggregate.class,
                    StreamExecLocalGroupAggregate.class,
                    StreamExecGlobalGroupAggregate.class,
                    StreamExecIncrementalGroupAggregate.class,
                    StreamExecWindowAggregate.class,
                    StreamExecLocalWindowAggregate.class,
                    StreamExecGlobalWindowAggregate.class,
                    StreamExecGroupWindowAggregate.class
                }) {
            assertThat(registry.knows(node)).as(node.getSimpleName()).isTrue();
        }
        assertThat(registry.knows(StreamExecJoin.class)).isFalse();
        assertThat(registry.knows(StreamExecRank.class)).isFalse();
    }

    @Test
    void twoFamiliesForOneNodeAreRefusedNamingBoth() {
        OperatorFamily second =
                registry -> registry.refuse(StreamExecCalc.class, "a second Calc family");
        assertThatThrownBy(() -> ConverterRegistry.of(new CalcConverter(), second))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(StreamExecCalc.class.getName())
                .hasMessageContaining(CalcConverter.class.getName())
                .hasMessageContaining(second.getClass().getName());
    }

    @Test
    void aRegistryHoldsTheFamiliesGivenItOnly() {
        ConverterRegistry registry =
                ConverterRegistry.of(
                        new CalcConverter(),
                        r -> r.refuse(StreamExecRank.class, "Rank is planned elsewhere"));
        assertThat(registry.knows(StreamExecRank.class)).isTrue();
        assertThat(registry.knows(StreamExecCalc.class)).isTrue();
        assertThat(registry.knows(StreamExecGroupAggregate.class)).isFalse();
    }
}
