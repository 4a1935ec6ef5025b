package io.streamfusion.planner.convert;

import io.streamfusion.plan.DataType;
import io.streamfusion.plan.Field;
import io.streamfusion.runtime.jni.Plans;

import org.apache.flink.table.api.dataview.MapView;
import org.apache.flink.table.runtime.typeutils.ExternalSerializer;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RawType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.StructuredType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

/** Flink LogicalType to the plan's DataType, refusing the types the engine does not support. */
public final class TypeConverter {
    private TypeConverter() {}

    public static DataType toProto(LogicalType type) throws UnsupportedNativeException {
        int depth = depth(type);
        if (depth > Plans.MAX_TYPE_DEPTH) {
            throw new UnsupportedNativeException(
                    "type "
                            + type.asSummaryString()
                            + " nests "
                            + depth
                            + " levels deep, more than the native engine's "
                            + Plans.MAX_TYPE_DEPTH);
        }
        return convert(type);
    }

    /** The nesting depth of {@code type}: 1 for a type without children. */
    private static int depth(LogicalType type) {
        int deepest = 0;
        for (LogicalType child : type.getChildren()) {
            deepest = Math.max(deepest, depth(child));
        }
        return 1 + deepest;
    }

    private static DataType convert(LogicalType type) throws UnsupportedNativeException {
        DataType.Builder b = DataType.newBuilder().setNullable(type.isNullable());
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return b.setKind(DataType.Kind.BOOLEAN).build();
            case TINYINT:
                return b.setKind(DataType.Kind.TINYINT).build();
            case SMALLINT:
                return b.setKind(DataType.Kind.SMALLINT).build();
            case INTEGER:
                return b.setKind(DataType.Kind.INT).build();
            case BIGINT:
                return b.setKind(DataType.Kind.BIGINT).build();
            case FLOAT:
                return b.setKind(DataType.Kind.FLOAT).build();
            case DOUBLE:
                return b.setKind(DataType.Kind.DOUBLE).build();
            case DECIMAL:
                DecimalType d = (DecimalType) type;
                return b.setKind(DataType.Kind.DECIMAL)
                        .setPrecision(d.getPrecision())
                        .setScale(d.getScale())
                        .build();
            case CHAR:
                return b.setKind(DataType.Kind.CHAR)
                        .setLength(((CharType) type).getLength())
                        .build();
            case VARCHAR:
                return b.setKind(DataType.Kind.VARCHAR)
                        .setLength(((VarCharType) type).getLength())
                        .build();
            case BINARY:
                return b.setKind(DataType.Kind.BINARY)
                        .setLength(((BinaryType) type).getLength())
                        .build();
            case VARBINARY:
                return b.setKind(DataType.Kind.VARBINARY)
                        .setLength(((VarBinaryType) type).getLength())
                        .build();
            case DATE:
                return b.setKind(DataType.Kind.DATE).build();
            case TIME_WITHOUT_TIME_ZONE:
                return b.setKind(DataType.Kind.TIME)
                        .setPrecision(((TimeType) type).getPrecision())
                        .build();
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return b.setKind(DataType.Kind.TIMESTAMP)
                        .setPrecision(((TimestampType) type).getPrecision())
                        .build();
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return b.setKind(DataType.Kind.TIMESTAMP_LTZ)
                        .setPrecision(((LocalZonedTimestampType) type).getPrecision())
                        .build();
            case ROW:
                b.setKind(DataType.Kind.ROW);
                for (RowType.RowField field : ((RowType) type).getFields()) {
                    b.addFields(
                            Field.newBuilder()
                                    .setName(field.getName())
                                    .setType(convert(field.getType())));
                }
                return b.build();
            case STRUCTURED_TYPE:
                // An aggregate function's accumulator (e.g. MinWithRetractAccumulator, which
                // LocalGroupAggregate sends on): internally a RowData, laid out as a ROW.
                b.setKind(DataType.Kind.ROW);
                for (StructuredType.StructuredAttribute attribute :
                        ((StructuredType) type).getAttributes()) {
                    b.addFields(
                            Field.newBuilder()
                                    .setName(attribute.getName())
                                    .setType(convert(attribute.getType())));
                }
                return b.build();
            case NULL:
                return b.setKind(DataType.Kind.NULL).build();
            case INTERVAL_YEAR_MONTH:
                return b.setKind(DataType.Kind.INTERVAL_YEAR_MONTH).build();
            case INTERVAL_DAY_TIME:
                return b.setKind(DataType.Kind.INTERVAL_DAY_TIME).build();
            case RAW:
                // Legacy RAW types (TypeInformationRawType) share the root but not the class.
                if (type instanceof RawType && isHeapMapView((RawType<?>) type)) {
                    // A two-phase DISTINCT map between Local and Global GroupAggregate: opaque
                    // serialized bytes, which a BinaryRowData holds like a VARBINARY's.
                    return b.setKind(DataType.Kind.VARBINARY)
                            .setLength(VarBinaryType.MAX_LENGTH)
                            .build();
                }
                throw new UnsupportedNativeException(
                        "type " + type.asSummaryString() + " is not supported natively");
            default:
                throw new UnsupportedNativeException(
                        "type " + type.asSummaryString() + " is not supported natively");
        }
    }

    /** A MapView carried by value (ExternalSerializer), as LocalGroupAggregate emits one. */
    private static boolean isHeapMapView(RawType<?> type) {
        return type.getOriginatingClass() == MapView.class
                && type.getTypeSerializer() instanceof ExternalSerializer;
    }

    public static io.streamfusion.plan.RowType toProto(RowType rowType)
            throws UnsupportedNativeException {
        io.streamfusion.plan.RowType.Builder b = io.streamfusion.plan.RowType.newBuilder();
        for (RowType.RowField field : rowType.getFields()) {
            try {
                b.addFields(
                        Field.newBuilder()
                                .setName(field.getName())
                                .setType(toProto(field.getType())));
            } catch (UnsupportedNativeException e) {
                throw new UnsupportedNativeException(
                        "column " + field.getName() + ": " + e.getMessage());
            }
        }
        return b.build();
    }
}
