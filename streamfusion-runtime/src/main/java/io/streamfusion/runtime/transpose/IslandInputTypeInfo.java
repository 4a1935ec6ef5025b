package io.streamfusion.runtime.transpose;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import java.util.Objects;

/**
 * The type of the rows an operator hands to a native island that is its only consumer.
 *
 * <p>With object reuse off (Flink's default) every record passed between chained operators is first
 * deep-copied with the serializer of this type ({@code CopyingChainingOutput}), so that a consumer
 * that keeps or changes the object is safe from a producer that reuses it. A native island needs no
 * such copy: its entry transpose reads each row while {@code processElement} runs, writes it into
 * the batch buffer, and never keeps or changes the object. Measured on Nexmark rows (nested
 * person/auction/bid ROWs) that copy was half of the CPU time of a source-to-island chain. This
 * type's serializer is Flink's RowDataSerializer in every respect (network and state formats
 * included) except that its in-memory copy returns the row itself. The planner gives an upstream
 * transformation this type only when the island is its sole consumer and nothing has read the type
 * yet.
 */
public final class IslandInputTypeInfo extends TypeInformation<RowData> {
    private static final long serialVersionUID = 1L;

    private final RowType rowType;

    public IslandInputTypeInfo(RowType rowType) {
        this.rowType = rowType;
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<RowData> getTypeClass() {
        return RowData.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<RowData> createSerializer(SerializerConfig config) {
        return new NoCopySerializer(rowType);
    }

    @Override
    public String toString() {
        return "IslandInput(" + rowType.asSummaryString() + ")";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IslandInputTypeInfo
                && ((IslandInputTypeInfo) o).rowType.equals(rowType);
    }

    @Override
    public int hashCode() {
        return Objects.hash(IslandInputTypeInfo.class, rowType);
    }

    @Override
    public boolean canEqual(Object o) {
        return o instanceof IslandInputTypeInfo;
    }

    /** Flink's RowDataSerializer whose in-memory copy hands the row over as it is. */
    static final class NoCopySerializer extends RowDataSerializer {
        private static final long serialVersionUID = 1L;

        private final RowType rowType;

        NoCopySerializer(RowType rowType) {
            super(rowType);
            this.rowType = rowType;
        }

        @Override
        public RowData copy(RowData from) {
            return from;
        }

        @Override
        public RowData copy(RowData from, RowData reuse) {
            return from;
        }

        @Override
        public TypeSerializer<RowData> duplicate() {
            return new NoCopySerializer(rowType);
        }
    }
}
