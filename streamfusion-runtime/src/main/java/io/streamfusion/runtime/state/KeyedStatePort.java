package io.streamfusion.runtime.state;

import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.State;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.binary.BinaryRowData;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The JVM side of the state port (native/src/streamfusion/state/state_port.h): serves a native
 * operator's state messages from Flink's keyed state backend. The shell declares the operator's
 * states once, numbered as the native operator names them, with their codecs; a message's reads are
 * answered and its writes applied in order, under the keys the message announced (set as the
 * current key through {@code setCurrentKey}).
 *
 * <p>A state declared {@linkplain #declareAbsent absent} (one Flink's function does not have, such
 * as the NULL-key state of a map whose key cannot be NULL) takes clears as no-ops and refuses
 * anything else.
 */
public final class KeyedStatePort {

    private static final int GET_VALUE = 1;
    private static final int GET_ENTRY = 2;
    private static final int GET_ENTRIES = 3;
    private static final int PUT_VALUE = 4;
    private static final int CLEAR = 5;
    private static final int PUT_ENTRY = 6;
    private static final int REMOVE_ENTRY = 7;

    private final int keyArity;
    private final Consumer<Object> setCurrentKey;
    private final List<Declared> states = new ArrayList<>();
    private final StateBytes answers = new StateBytes();
    private BinaryRowData[] keys = new BinaryRowData[16];
    private int numKeys;

    /** Keys are BinaryRowData images of {@code keyArity} fields (Flink's key selector's rows). */
    public KeyedStatePort(int keyArity, Consumer<Object> setCurrentKey) {
        this.keyArity = keyArity;
        this.setCurrentKey = setCurrentKey;
    }

    private static final class Declared {
        final String name;
        final State state;
        final StateCodec keyCodec;
        final StateCodec valueCodec;

        Declared(String name, State state, StateCodec keyCodec, StateCodec valueCodec) {
            this.name = name;
            this.state = state;
            this.keyCodec = keyCodec;
            this.valueCodec = valueCodec;
        }
    }

    /** Declares state {@code id}: a ValueState whose values {@code codec} encodes. */
    public void declareValue(int id, String name, ValueState<?> state, StateCodec codec) {
        declare(id, new Declared(name, state, null, codec));
    }

    /** Declares state {@code id}: a MapState with the codecs of its keys and values. */
    public void declareMap(
            int id, String name, MapState<?, ?> state, StateCodec keyCodec, StateCodec valueCodec) {
        declare(id, new Declared(name, state, keyCodec, valueCodec));
    }

    /** Declares that state {@code id} does not exist for this operator. */
    public void declareAbsent(int id, String name) {
        declare(id, new Declared(name, null, null, null));
    }

    private void declare(int id, Declared declared) {
        while (states.size() <= id) {
            states.add(null);
        }
        states.set(id, declared);
    }

    /**
     * Serves the message in {@code message} from {@code offset} to its end: returns the answers to
     * its reads, or null when it has none.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public byte[] serve(byte[] message, int offset) throws Exception {
        int at = offset;
        int first = StateBytes.readInt(message, at);
        int count = StateBytes.readInt(message, at + 4);
        at += 8;
        if (first == 0) {
            numKeys = 0;
        } else if (first != numKeys) {
            throw new IllegalStateException(
                    "State message keys from " + first + " after " + numKeys + " keys");
        }
        if (numKeys + count > keys.length) {
            keys = Arrays.copyOf(keys, Math.max(numKeys + count, keys.length * 2));
        }
        for (int k = 0; k < count; k++) {
            int length = StateBytes.readInt(message, at);
            at += 4;
            BinaryRowData key = new BinaryRowData(keyArity);
            key.pointTo(
                    MemorySegmentFactory.wrap(Arrays.copyOfRange(message, at, at + length)),
                    0,
                    length);
            keys[numKeys++] = key;
            at += length;
        }
        int ops = StateBytes.readInt(message, at);
        at += 4;
        answers.clear();
        boolean reads = false;
        int currentKey = -1;
        for (int i = 0; i < ops; i++) {
            int code = message[at];
            int id = StateBytes.readInt(message, at + 1);
            int key = StateBytes.readInt(message, at + 5);
            at += 9;
            Declared state = id >= 0 && id < states.size() ? states.get(id) : null;
            if (state == null) {
                throw new IllegalStateException("State message names undeclared state " + id);
            }
            if (key < 0 || key >= numKeys) {
                throw new IllegalStateException("State message names key " + key);
            }
            if (state.state == null) {
                if (code == CLEAR) {
                    continue;
                }
                throw new IllegalStateException(
                        "State message op " + code + " on absent state " + state.name);
            }
            if (key != currentKey) {
                setCurrentKey.accept(keys[key]);
                currentKey = key;
            }
            Object mapKey = null;
            if (code == GET_ENTRY || code == PUT_ENTRY || code == REMOVE_ENTRY) {
                int length = StateBytes.readInt(message, at);
                mapKey = state.keyCodec.decode(message, at + 4, length);
                at += 4 + length;
            }
            switch (code) {
                case GET_VALUE:
                    reads = true;
                    writeValue(state, ((ValueState<Object>) state.state).value());
                    break;
                case GET_ENTRY:
                    reads = true;
                    writeValue(state, ((MapState<Object, Object>) state.state).get(mapKey));
                    break;
                case GET_ENTRIES:
                    reads = true;
                    NativeMetrics.addWholeMapLoads(1);
                    writeEntries(state, ((MapState<Object, Object>) state.state).entries());
                    break;
                case PUT_VALUE:
                case PUT_ENTRY:
                    {
                        int length = StateBytes.readInt(message, at);
                        Object value = state.valueCodec.decode(message, at + 4, length);
                        at += 4 + length;
                        if (code == PUT_VALUE) {
                            ((ValueState<Object>) state.state).update(value);
                        } else {
                            ((MapState<Object, Object>) state.state).put(mapKey, value);
                        }
                        break;
                    }
                case CLEAR:
                    state.state.clear();
                    break;
                case REMOVE_ENTRY:
                    ((MapState<Object, Object>) state.state).remove(mapKey);
                    break;
                default:
                    throw new IllegalStateException("State message op " + code);
            }
        }
        if (at != message.length) {
            throw new IllegalStateException(
                    "State message of " + message.length + " bytes ends at " + at);
        }
        return reads ? answers.toArray() : null;
    }

    private void writeValue(Declared state, Object value) throws Exception {
        if (value == null) {
            answers.writeInt(-1);
            return;
        }
        int at = answers.reserveInt();
        state.valueCodec.encode(value, answers);
        answers.patchInt(at, answers.size() - at - 4);
    }

    private void writeEntries(Declared state, Iterable<Map.Entry<Object, Object>> entries)
            throws Exception {
        int countAt = answers.reserveInt();
        int count = 0;
        if (entries != null) {
            for (Map.Entry<Object, Object> entry : entries) {
                int at = answers.reserveInt();
                state.keyCodec.encode(entry.getKey(), answers);
                answers.patchInt(at, answers.size() - at - 4);
                writeValue(state, entry.getValue());
                count++;
            }
        }
        answers.patchInt(countAt, count);
    }
}
