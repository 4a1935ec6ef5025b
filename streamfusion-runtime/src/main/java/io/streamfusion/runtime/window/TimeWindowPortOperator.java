package io.streamfusion.runtime.window;

import io.streamfusion.runtime.island.ShellSpec;
import io.streamfusion.runtime.state.StateCodec;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.runtime.operators.window.TimeWindow;

/**
 * The shells on the port of the window operators whose state and timers are namespaced by {@link
 * TimeWindow}: Flink's WindowOperator (group windows, sessions) and the session window TVF.
 */
abstract class TimeWindowPortOperator extends PortWindowOperator<TimeWindow> {

    private static final long serialVersionUID = 1L;

    /**
     * @param keepsWatermark see {@link PortWindowOperator#PortWindowOperator}
     * @param stateInStore see {@link PortWindowOperator#PortWindowOperator}
     */
    protected TimeWindowPortOperator(ShellSpec spec, boolean keepsWatermark, boolean stateInStore) {
        super(spec, keepsWatermark, stateInStore);
    }

    @Override
    protected TypeSerializer<TimeWindow> namespaceSerializer() {
        return new TimeWindow.Serializer();
    }

    @Override
    protected StateCodec namespaceCodec() {
        return StateCodec.timeWindow();
    }
}
