package io.streamfusion.runtime.state;

import io.streamfusion.plan.StateOp;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.State;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.internal.InternalKvState;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongUnaryOperator;
import java.util.stream.Stream;

/**
 * The JVM side of the state port (native/src/streamfusion/state/state_port.h): serves a native
 * operator's state messages from Flink's keyed state backend. The shell declares the operator's
 * states once, numbered as the native operator names them, with their codecs; a message's reads are
 * answered and its writes applied in order, under the keys the message announced (set as the
 * current key through {@code setCurrentKey}).
 *
 * <p>A state declared {@linkplain #declareAbsent absent} (one Flink's function does not have, such
 * as the NULL-key state of a map whose key cannot be NULL) has no value and no entries, takes
 * clears as no-ops and refuses writes.
 *
 * <p>A namespaced state (a window operator's {@link InternalKvState}, declared with the codec of
 * its namespace) is addressed with a namespace on every operation, set as its current namespace.
 * Timer services are declared apart, numbered from 0: the native operator registers and deletes
 * their timers under a key and a namespace, and takes the timers that fired ({@link #timerFired},
 * called from the shell's timer callbacks, in Flink's order) with a read.
 *
 * <p>A value the shell has just read itself (a timer callback deciding, as Flink's does, whether a
 * window's next timer is due) can be {@linkplain #cacheValue cached}: the native operator's read of
 * it is then answered without reading the backend again, until any write.
 */
public final class KeyedStatePort {

    // The op codes of plan.proto's StateOp, which the native side writes.
    private static final int GET_VALUE = StateOp.STATE_OP_GET_VALUE_VALUE;
    private static final int GET_ENTRY = StateOp.STATE_OP_GET_ENTRY_VALUE;
    private static final int GET_ENTRIES = StateOp.STATE_OP_GET_ENTRIES_VALUE;
    private static final int PUT_VALUE = StateOp.STATE_OP_PUT_VALUE_VALUE;
    private static final int CLEAR = StateOp.STATE_OP_CLEAR_VALUE;
    private static final int PUT_ENTRY = StateOp.STATE_OP_PUT_ENTRY_VALUE;
    private static final int REMOVE_ENTRY = StateOp.STATE_OP_REMOVE_ENTRY_VALUE;
    private static final int REGISTER_EVENT_TIMER = StateOp.STATE_OP_REGISTER_EVENT_TIMER_VALUE;
    private static final int DELETE_EVENT_TIMER = StateOp.STATE_OP_DELETE_EVENT_TIMER_VALUE;
    private static final int REGISTER_PROCESSING_TIMER =
            StateOp.STATE_OP_REGISTER_PROCESSING_TIMER_VALUE;
    private static final int DELETE_PROCESSING_TIMER =
            StateOp.STATE_OP_DELETE_PROCESSING_TIMER_VALUE;
    private static final int FIRED_TIMERS = StateOp.STATE_OP_FIRED_TIMERS_VALUE;
    private static final int NAMESPACED = StateOp.STATE_OP_NAMESPACED_VALUE;

    private final int keyArity;
    private final Consumer<Object> setCurrentKey;
    private final List<Declared> states = new ArrayList<>();
    private final List<Timers> timerServices = new ArrayList<>();
    private final List<Object> firedKeys = new ArrayList<>();
    private final List<Object> firedNamespaces = new ArrayList<>();
    private long[] firedTimes = new long[16];
    private final StateBytes answers = new StateBytes();
    private BinaryRowData[] keys = new BinaryRowData[16];
    private int numKeys;
    private final Map<CachedRead, Object> cache = new HashMap<>();

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
        final StateCodec namespaceCodec;

        Declared(
                String name,
                State state,
                StateCodec keyCodec,
                StateCodec valueCodec,
                StateCodec namespaceCodec) {
            this.name = name;
            this.state = state;
            this.keyCodec = keyCodec;
            this.valueCodec = valueCodec;
            this.namespaceCodec = namespaceCodec;
        }
    }

    private static final class Timers {
        final InternalTimerService<Object> service;
        final StateCodec namespaceCodec;
        final LongUnaryOperator time;

        Timers(
                InternalTimerService<Object> service,
                StateCodec namespaceCodec,
                LongUnaryOperator time) {
            this.service = service;
            this.namespaceCodec = namespaceCodec;
            this.time = time;
        }
    }

    /** A cached read: a namespaced ValueState's value under a key and a namespace. */
    private static final class CachedRead {
        final int state;
        final Object key;
        final Object namespace;

        CachedRead(int state, Object key, Object namespace) {
            this.state = state;
            this.key = key;
            this.namespace = namespace;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof CachedRead)) {
                return false;
            }
            CachedRead other = (CachedRead) o;
            return state == other.state
                    && key.equals(other.key)
                    && namespace.equals(other.namespace);
        }

        @Override
        public int hashCode() {
            return Objects.hash(state, key, namespace);
        }
    }

    /** Declares state {@code id}: a ValueState whose values {@code codec} encodes. */
    public void declareValue(int id, String name, ValueState<?> state, StateCodec codec) {
        declare(id, new Declared(name, state, null, codec, null));
    }

    /** Declares state {@code id}: a MapState with the codecs of its keys and values. */
    public void declareMap(
            int id, String name, MapState<?, ?> state, StateCodec keyCodec, StateCodec valueCodec) {
        declare(id, new Declared(name, state, keyCodec, valueCodec, null));
    }

    /**
     * Declares state {@code id}: a namespaced ValueState (an {@link InternalKvState}) with the
     * codecs of its values and namespaces.
     */
    public void declareNamespacedValue(
            int id,
            String name,
            InternalKvState<?, ?, ?> state,
            StateCodec codec,
            StateCodec namespaceCodec) {
        declare(id, new Declared(name, (State) state, null, codec, namespaceCodec));
    }

    /** Declares state {@code id}: a namespaced MapState, as {@link #declareNamespacedValue}. */
    public void declareNamespacedMap(
            int id,
            String name,
            InternalKvState<?, ?, ?> state,
            StateCodec keyCodec,
            StateCodec valueCodec,
            StateCodec namespaceCodec) {
        declare(id, new Declared(name, (State) state, keyCodec, valueCodec, namespaceCodec));
    }

    /** The names of the declared states, in their numbering (null where none is declared). */
    public List<String> stateNames() {
        List<String> names = new ArrayList<>();
        for (Declared state : states) {
            names.add(state == null ? null : state.name);
        }
        return names;
    }

    /** The ids of the declared ValueStates (not MapStates, not absent ones), ascending. */
    public List<Integer> valueStates() {
        List<Integer> ids = new ArrayList<>();
        for (int id = 0; id < states.size(); id++) {
            Declared state = states.get(id);
            if (state != null && state.state != null && state.keyCodec == null) {
                ids.add(id);
            }
        }
        return ids;
    }

    /** Declares that state {@code id} does not exist for this operator. */
    public void declareAbsent(int id, String name) {
        declare(id, new Declared(name, null, null, null, null));
    }

    private void declare(int id, Declared declared) {
        while (states.size() <= id) {
            states.add(null);
        }
        states.set(id, declared);
    }

    /** Declares timer service {@code id}, whose namespaces {@code namespaceCodec} encodes. */
    public void declareTimers(int id, InternalTimerService<?> service, StateCodec namespaceCodec) {
        declareTimers(id, service, namespaceCodec, LongUnaryOperator.identity());
    }

    /**
     * As {@link #declareTimers(int, InternalTimerService, StateCodec)}, the native operator's timer
     * times mapped to the service's by {@code time} (a window's end - 1 in its time zone to epoch
     * milliseconds).
     */
    @SuppressWarnings("unchecked")
    public void declareTimers(
            int id,
            InternalTimerService<?> service,
            StateCodec namespaceCodec,
            LongUnaryOperator time) {
        while (timerServices.size() <= id) {
            timerServices.add(null);
        }
        timerServices.set(
                id, new Timers((InternalTimerService<Object>) service, namespaceCodec, time));
    }

    /**
     * The value of namespaced ValueState {@code id} under {@code key} (a BinaryRowData) and {@code
     * namespace}, just read by the shell (null: none): the operator's next reads of it are answered
     * with it, until the next write to any state.
     */
    public void cacheValue(int id, Object key, Object namespace, Object value) {
        cache.put(new CachedRead(id, key, namespace), value);
    }

    /**
     * A timer fired (the shell's onEventTime / onProcessingTime, in Flink's order): kept until the
     * native operator reads the fired timers. {@code key} is the timer's key, a BinaryRowData.
     */
    public void timerFired(Object key, Object namespace, long time) {
        int n = firedKeys.size();
        if (n == firedTimes.length) {
            firedTimes = Arrays.copyOf(firedTimes, n * 2);
        }
        firedKeys.add(key);
        firedNamespaces.add(namespace);
        firedTimes[n] = time;
    }

    /** Whether timers fired that the native operator has not read yet. */
    public boolean hasFiredTimers() {
        return !firedKeys.isEmpty();
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
            int code = message[at] & 0xff;
            int id = StateBytes.readInt(message, at + 1);
            int key = StateBytes.readInt(message, at + 5);
            at += 9;
            boolean namespaced = (code & NAMESPACED) != 0;
            code &= ~NAMESPACED;
            if (code == FIRED_TIMERS) {
                reads = true;
                writeFiredTimers(timers(id));
                continue;
            }
            if (key < 0 || key >= numKeys) {
                throw new IllegalStateException(
                        "State message op "
                                + code
                                + " on state "
                                + id
                                + " names key "
                                + key
                                + " of "
                                + numKeys);
            }
            if (code >= REGISTER_EVENT_TIMER && code <= DELETE_PROCESSING_TIMER) {
                Timers timers = timers(id);
                if (!namespaced) {
                    throw new IllegalStateException("A timer op without a namespace");
                }
                int length = StateBytes.readInt(message, at);
                Object namespace = timers.namespaceCodec.decode(message, at + 4, length);
                at += 4 + length;
                long time = StateBytes.readLong(message, at);
                at += 8;
                if (key != currentKey) {
                    setCurrentKey.accept(keys[key]);
                    currentKey = key;
                }
                timerOp(timers.service, code, namespace, timers.time.applyAsLong(time));
                continue;
            }
            Declared state = id >= 0 && id < states.size() ? states.get(id) : null;
            if (state == null) {
                throw new IllegalStateException("State message names undeclared state " + id);
            }
            Object namespace = null;
            if (namespaced) {
                int length = StateBytes.readInt(message, at);
                if (state.namespaceCodec != null && state.state != null) {
                    namespace = state.namespaceCodec.decode(message, at + 4, length);
                    ((InternalKvState<?, Object, ?>) state.state).setCurrentNamespace(namespace);
                } else if (state.state != null) {
                    throw new IllegalStateException(
                            "State message names a namespace of state " + state.name);
                }
                at += 4 + length;
            } else if (state.namespaceCodec != null) {
                throw new IllegalStateException(
                        "State message names no namespace of state " + state.name);
            }
            if (state.state == null) {
                at = skipOperands(message, at, code);
                if (code == CLEAR) {
                    continue;
                }
                if (code == GET_VALUE || code == GET_ENTRY) {
                    reads = true;
                    answers.writeInt(-1);
                    continue;
                }
                if (code == GET_ENTRIES) {
                    reads = true;
                    answers.writeInt(0);
                    continue;
                }
                throw new IllegalStateException(
                        "State message op " + code + " on absent state " + state.name);
            }
            if (key != currentKey) {
                setCurrentKey.accept(keys[key]);
                currentKey = key;
            }
            if (code >= PUT_VALUE && !cache.isEmpty()) {
                cache.clear();
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
                    CachedRead cached =
                            cache.isEmpty() || namespace == null
                                    ? null
                                    : new CachedRead(id, keys[key], namespace);
                    if (cached != null && cache.containsKey(cached)) {
                        writeValue(state, cache.get(cached));
                    } else {
                        writeValue(state, ((ValueState<Object>) state.state).value());
                    }
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

    private Timers timers(int id) {
        Timers timers = id >= 0 && id < timerServices.size() ? timerServices.get(id) : null;
        if (timers == null) {
            throw new IllegalStateException("State message names undeclared timers " + id);
        }
        return timers;
    }

    private static void timerOp(
            InternalTimerService<Object> service, int code, Object namespace, long time) {
        switch (code) {
            case REGISTER_EVENT_TIMER:
                service.registerEventTimeTimer(namespace, time);
                break;
            case DELETE_EVENT_TIMER:
                service.deleteEventTimeTimer(namespace, time);
                break;
            case REGISTER_PROCESSING_TIMER:
                service.registerProcessingTimeTimer(namespace, time);
                break;
            default:
                service.deleteProcessingTimeTimer(namespace, time);
                break;
        }
    }

    /** Past the operands of an op on an absent state (its map key, its value). */
    private static int skipOperands(byte[] message, int at, int code) {
        int blobs =
                code == PUT_ENTRY
                        ? 2
                        : code == GET_ENTRY || code == REMOVE_ENTRY || code == PUT_VALUE ? 1 : 0;
        for (int b = 0; b < blobs; b++) {
            at += 4 + StateBytes.readInt(message, at);
        }
        return at;
    }

    /** The answer to a FIRED_TIMERS read: the timers fired since the last one, in order. */
    private void writeFiredTimers(Timers timers) throws Exception {
        int n = firedKeys.size();
        answers.writeInt(n);
        for (int t = 0; t < n; t++) {
            int at = answers.reserveInt();
            StateCodec.writeImage((BinaryRowData) firedKeys.get(t), answers);
            answers.patchInt(at, answers.size() - at - 4);
            at = answers.reserveInt();
            timers.namespaceCodec.encode(firedNamespaces.get(t), answers);
            answers.patchInt(at, answers.size() - at - 4);
            answers.writeLong(firedTimes[t]);
        }
        firedKeys.clear();
        firedNamespaces.clear();
    }

    /**
     * Moves what the declared states and timer services hold in the keyed state backend out of it,
     * as state port messages of writes (PutValue, PutEntry, RegisterEventTimer; namespaced where
     * the state is; each message numbering its keys from 0 and of about {@code messageBytes} at
     * most) handed to {@code sink}, then clears those states and deletes those timers: a restore
     * from Flink's layout of them (a savepoint of stock Flink, or of the native operator over Flink
     * state) into a native port store, which applies the messages. Processing-time timers and
     * timers whose native time is not Flink's cannot move. Returns the keys moved.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public int moveOut(KeyedStateBackend<?> backend, int messageBytes, Consumer<byte[]> sink)
            throws Exception {
        // What each key holds: (declared state or timer service, namespace or null, timer time).
        Map<BinaryRowData, List<Moved>> byKey = new LinkedHashMap<>();
        for (int id = 0; id < states.size(); id++) {
            Declared state = states.get(id);
            if (state == null || state.state == null) {
                continue;
            }
            int stateId = id;
            if (state.namespaceCodec == null) {
                try (Stream<?> stateKeys = backend.getKeys(state.name, VoidNamespace.INSTANCE)) {
                    stateKeys.forEach(key -> movedOf(byKey, key).add(new Moved(stateId, null)));
                }
                continue;
            }
            try (Stream<? extends Tuple2<?, ?>> keys =
                    ((KeyedStateBackend) backend).getKeysAndNamespaces(state.name)) {
                keys.forEach(kn -> movedOf(byKey, kn.f0).add(new Moved(stateId, kn.f1)));
            }
        }
        for (int id = 0; id < timerServices.size(); id++) {
            Timers timers = timerServices.get(id);
            if (timers == null) {
                continue;
            }
            int timerId = id;
            timers.service.forEachProcessingTimeTimer(
                    (namespace, time) -> {
                        throw new IllegalStateException(
                                "A processing-time timer cannot move into a native store");
                    });
            timers.service.forEachEventTimeTimer(
                    (namespace, time) -> {
                        if (timers.time.applyAsLong(time) != time) {
                            throw new IllegalStateException(
                                    "Timers of another time than Flink's cannot move into a native"
                                            + " store");
                        }
                        movedOf(byKey, backend.getCurrentKey())
                                .add(new Moved(timerId, namespace, time));
                    });
        }
        StateBytes keyBytes = new StateBytes();
        StateBytes ops = new StateBytes();
        int[] counts = new int[2]; // keys, ops of the message being built
        Runnable flush =
                () -> {
                    if (counts[1] == 0) {
                        return;
                    }
                    StateBytes message = new StateBytes();
                    message.writeInt(0);
                    message.writeInt(counts[0]);
                    message.write(keyBytes.toArray(), 0, keyBytes.size());
                    message.writeInt(counts[1]);
                    message.write(ops.toArray(), 0, ops.size());
                    sink.accept(message.toArray());
                    keyBytes.clear();
                    ops.clear();
                    counts[0] = 0;
                    counts[1] = 0;
                };
        for (Map.Entry<BinaryRowData, List<Moved>> keyed : byKey.entrySet()) {
            BinaryRowData key = keyed.getKey();
            setCurrentKey.accept(key);
            byte[] image =
                    BinarySegmentUtils.copyToBytes(
                            key.getSegments(), key.getOffset(), key.getSizeInBytes());
            keyBytes.writeInt(image.length);
            keyBytes.write(image, 0, image.length);
            int index = counts[0]++;
            for (Moved moved : keyed.getValue()) {
                counts[1] += moved.write(this, index, ops);
            }
            if (keyBytes.size() + ops.size() >= messageBytes) {
                flush.run();
            }
        }
        flush.run();
        for (Map.Entry<BinaryRowData, List<Moved>> keyed : byKey.entrySet()) {
            setCurrentKey.accept(keyed.getKey());
            for (Moved moved : keyed.getValue()) {
                moved.clear(this);
            }
        }
        return byKey.size();
    }

    private static List<Moved> movedOf(Map<BinaryRowData, List<Moved>> byKey, Object key) {
        return byKey.computeIfAbsent(binaryKey(key).copy(), k -> new ArrayList<>());
    }

    /** A state (or a state's namespace) or a timer of a key that {@link #moveOut} moves. */
    private static final class Moved {
        final int id;
        final Object namespace;
        final boolean timer;
        final long time;

        Moved(int id, Object namespace) {
            this(id, namespace, false, 0);
        }

        Moved(int id, Object namespace, long time) {
            this(id, namespace, true, time);
        }

        private Moved(int id, Object namespace, boolean timer, long time) {
            this.id = id;
            this.namespace = namespace;
            this.timer = timer;
            this.time = time;
        }

        /** Writes the moved content's ops under key {@code key}; returns their number. */
        @SuppressWarnings({"unchecked", "rawtypes"})
        int write(KeyedStatePort port, int key, StateBytes ops) throws IOException {
            if (timer) {
                Timers timers = port.timerServices.get(id);
                writeOp(ops, REGISTER_EVENT_TIMER | NAMESPACED, id, key);
                writeBlob(ops, timers.namespaceCodec, namespace);
                ops.writeLong(time);
                return 1;
            }
            Declared state = port.states.get(id);
            int namespaced = 0;
            if (namespace != null) {
                ((InternalKvState<?, Object, ?>) state.state).setCurrentNamespace(namespace);
                namespaced = NAMESPACED;
            }
            if (state.keyCodec == null) {
                Object value;
                try {
                    value = ((ValueState<Object>) state.state).value();
                } catch (Exception e) {
                    throw new IOException("Cannot read state " + state.name, e);
                }
                if (value == null) {
                    return 0;
                }
                writeOp(ops, PUT_VALUE | namespaced, id, key);
                writeNamespace(state, ops);
                writeBlob(ops, state.valueCodec, value);
                return 1;
            }
            Iterable<Map.Entry<Object, Object>> entries;
            try {
                entries = ((MapState<Object, Object>) state.state).entries();
            } catch (Exception e) {
                throw new IOException("Cannot read state " + state.name, e);
            }
            int count = 0;
            if (entries != null) {
                for (Map.Entry<Object, Object> entry : entries) {
                    writeOp(ops, PUT_ENTRY | namespaced, id, key);
                    writeNamespace(state, ops);
                    writeBlob(ops, state.keyCodec, entry.getKey());
                    writeBlob(ops, state.valueCodec, entry.getValue());
                    count++;
                }
            }
            return count;
        }

        private void writeNamespace(Declared state, StateBytes ops) throws IOException {
            if (namespace != null) {
                writeBlob(ops, state.namespaceCodec, namespace);
            }
        }

        /** Clears the moved state, or deletes the moved timer, under the current key. */
        @SuppressWarnings("unchecked")
        void clear(KeyedStatePort port) throws Exception {
            if (timer) {
                port.timerServices.get(id).service.deleteEventTimeTimer(namespace, time);
                return;
            }
            Declared state = port.states.get(id);
            if (namespace != null) {
                ((InternalKvState<?, Object, ?>) state.state).setCurrentNamespace(namespace);
            }
            state.state.clear();
        }
    }

    private static BinaryRowData binaryKey(Object key) {
        if (!(key instanceof BinaryRowData)) {
            throw new IllegalStateException(
                    "A key of " + key.getClass().getName() + ", not BinaryRowData, in keyed state");
        }
        return (BinaryRowData) key;
    }

    private static void writeOp(StateBytes out, int code, int state, int key) {
        out.writeByte(code);
        out.writeInt(state);
        out.writeInt(key);
    }

    private static void writeBlob(StateBytes out, StateCodec codec, Object value)
            throws IOException {
        int at = out.reserveInt();
        codec.encode(value, out);
        out.patchInt(at, out.size() - at - 4);
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
