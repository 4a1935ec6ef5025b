package io.streamfusion.planner.convert;

import com.google.protobuf.ByteString;

import io.streamfusion.plan.Call;
import io.streamfusion.plan.DataType;
import io.streamfusion.plan.Expr;
import io.streamfusion.plan.FieldAccess;
import io.streamfusion.plan.Literal;
import io.streamfusion.plan.Sarg;
import io.streamfusion.plan.SargRange;
import io.streamfusion.plan.TimestampValue;
import io.streamfusion.plan.UdfDescriptor;
import io.streamfusion.runtime.jni.Plans;

import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexFieldAccess;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUnknownAs;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.NlsString;
import org.apache.calcite.util.TimeString;
import org.apache.calcite.util.TimestampString;
import org.apache.flink.calcite.shaded.com.google.common.collect.BoundType;
import org.apache.flink.calcite.shaded.com.google.common.collect.Range;
import org.apache.flink.table.functions.BuiltInFunctionDefinition;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.functions.bridging.BridgingSqlAggFunction;
import org.apache.flink.table.planner.functions.bridging.BridgingSqlFunction;
import org.apache.flink.table.planner.functions.utils.ScalarSqlFunction;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javax.annotation.Nullable;

/**
 * Converts Calcite RexNodes of a Flink Calc into plan Exprs. Operators are sent by name: the kinds
 * in {@link #CALLS} by their plan name, any other built-in function by Flink's name for it in upper
 * case (spaces as underscores, e.g. IS_DISTINCT_FROM). The native function registry is the one list
 * of what runs natively: it refuses unknown names and unsupported operand types with a reason,
 * which the planner shows as the fallback reason. User-defined functions are never sent by name (a
 * temporary system function may shadow a built-in name): a user-defined ScalarFunction becomes a
 * call "UDF" of a descriptor in the plan's UDF list (see {@link UdfConverter}), which the native
 * pipeline calls back in the JVM once per batch.
 */
public final class RexConverter {

    /** Calcite kinds the native function registry implements, and their plan names. */
    private static final Map<SqlKind, String> CALLS =
            Map.ofEntries(
                    Map.entry(SqlKind.PLUS, "PLUS"),
                    Map.entry(SqlKind.MINUS, "MINUS"),
                    Map.entry(SqlKind.TIMES, "TIMES"),
                    Map.entry(SqlKind.DIVIDE, "DIVIDE"),
                    Map.entry(SqlKind.MOD, "MOD"),
                    Map.entry(SqlKind.MINUS_PREFIX, "NEGATE"),
                    Map.entry(SqlKind.PLUS_PREFIX, "UNARY_PLUS"),
                    Map.entry(SqlKind.EQUALS, "EQUALS"),
                    Map.entry(SqlKind.NOT_EQUALS, "NOT_EQUALS"),
                    Map.entry(SqlKind.LESS_THAN, "LESS_THAN"),
                    Map.entry(SqlKind.LESS_THAN_OR_EQUAL, "LESS_THAN_OR_EQUAL"),
                    Map.entry(SqlKind.GREATER_THAN, "GREATER_THAN"),
                    Map.entry(SqlKind.GREATER_THAN_OR_EQUAL, "GREATER_THAN_OR_EQUAL"),
                    Map.entry(SqlKind.AND, "AND"),
                    Map.entry(SqlKind.OR, "OR"),
                    Map.entry(SqlKind.NOT, "NOT"),
                    Map.entry(SqlKind.IS_NULL, "IS_NULL"),
                    Map.entry(SqlKind.IS_NOT_NULL, "IS_NOT_NULL"),
                    Map.entry(SqlKind.IS_TRUE, "IS_TRUE"),
                    Map.entry(SqlKind.IS_NOT_TRUE, "IS_NOT_TRUE"),
                    Map.entry(SqlKind.IS_FALSE, "IS_FALSE"),
                    Map.entry(SqlKind.IS_NOT_FALSE, "IS_NOT_FALSE"),
                    Map.entry(SqlKind.CASE, "CASE"),
                    Map.entry(SqlKind.COALESCE, "COALESCE"),
                    Map.entry(SqlKind.CAST, "CAST"),
                    Map.entry(SqlKind.SEARCH, "SEARCH"));

    private RexConverter() {}

    /** Converts {@code node}; a call of a user-defined function is refused. */
    public static Expr convert(RexNode node) throws UnsupportedNativeException {
        return convert(node, null);
    }

    /**
     * Converts {@code node}; calls of user-defined scalar functions add their descriptors to {@code
     * udfs} (the plan's UDF list), or are refused when it is null.
     */
    public static Expr convert(RexNode node, @Nullable List<UdfDescriptor> udfs)
            throws UnsupportedNativeException {
        Expr expr = convertNode(node, udfs);
        int depth = depth(expr);
        if (depth > Plans.MAX_EXPRESSION_DEPTH) {
            throw new UnsupportedNativeException(
                    "an expression nested "
                            + depth
                            + " levels deep is not native (at most "
                            + Plans.MAX_EXPRESSION_DEPTH
                            + "): the native engine compiles and evaluates expressions"
                            + " recursively on the task's thread stack");
        }
        return expr;
    }

    /** The nesting depth of {@code expr}: 1 for a leaf. */
    static int depth(Expr expr) {
        switch (expr.getNodeCase()) {
            case CALL:
                int deepest = 0;
                for (Expr operand : expr.getCall().getOperandsList()) {
                    deepest = Math.max(deepest, depth(operand));
                }
                return 1 + deepest;
            case FIELD_ACCESS:
                return 1 + depth(expr.getFieldAccess().getInput());
            default:
                return 1;
        }
    }

    private static Expr convertNode(RexNode node, @Nullable List<UdfDescriptor> udfs)
            throws UnsupportedNativeException {
        if (node instanceof RexLiteral && ((RexLiteral) node).getTypeName() == SqlTypeName.SYMBOL) {
            // A flag operand (TimeUnitRange of EXTRACT/FLOOR, TRIM's BOTH/LEADING/TRAILING...).
            Object value = ((RexLiteral) node).getValue();
            String name = value instanceof Enum ? ((Enum<?>) value).name() : String.valueOf(value);
            DataType symbol = DataType.newBuilder().setKind(DataType.Kind.SYMBOL).build();
            return Expr.newBuilder()
                    .setType(symbol)
                    .setLiteral(Literal.newBuilder().setType(symbol).setSymbolValue(name))
                    .build();
        }
        LogicalType type = FlinkTypeFactory.toLogicalType(node.getType());
        Expr.Builder expr = Expr.newBuilder().setType(TypeConverter.toProto(type));
        if (node instanceof RexInputRef) {
            return expr.setInputRef(((RexInputRef) node).getIndex()).build();
        }
        if (node instanceof RexLiteral) {
            return expr.setLiteral(literal((RexLiteral) node, type)).build();
        }
        if (node instanceof RexFieldAccess) {
            RexFieldAccess access = (RexFieldAccess) node;
            return expr.setFieldAccess(
                            FieldAccess.newBuilder()
                                    .setInput(convertNode(access.getReferenceExpr(), udfs))
                                    .setFieldIndex(access.getField().getIndex()))
                    .build();
        }
        if (node instanceof RexCall) {
            return expr.setCall(call((RexCall) node, udfs)).build();
        }
        throw new UnsupportedNativeException(
                "expression "
                        + node
                        + " ("
                        + node.getClass().getSimpleName()
                        + ") is not supported natively");
    }

    private static Call call(RexCall call, @Nullable List<UdfDescriptor> udfs)
            throws UnsupportedNativeException {
        SqlKind kind = call.getKind();
        String name = CALLS.get(kind);
        List<RexNode> operands = call.getOperands();
        if (kind == SqlKind.TIMES
                && FlinkTypeFactory.toLogicalType(call.getType()).is(LogicalTypeFamily.INTERVAL)) {
            // INTERVAL * number (TIMESTAMPADD with a column amount).
            name = "INTERVAL_TIMES";
        } else if ((kind == SqlKind.PLUS || kind == SqlKind.MINUS) && !allNumeric(call)) {
            // Datetime arithmetic (DATE/TIME/TIMESTAMP plus or minus an INTERVAL).
            name = kind == SqlKind.PLUS ? "DATETIME_PLUS" : "DATETIME_MINUS";
        }
        if (name == null) {
            name = builtInName(call.getOperator());
        }
        if ((kind == SqlKind.FLOOR || kind == SqlKind.CEIL) && operands.size() == 2) {
            // FLOOR/CEIL(datetime TO unit): a different function from numeric FLOOR/CEIL.
            name = kind == SqlKind.FLOOR ? "FLOOR_DATETIME" : "CEIL_DATETIME";
        }
        if (name == null && udfs != null && UdfConverter.isUserDefined(call)) {
            Call.Builder udf = Call.newBuilder().setFunction("UDF");
            for (RexNode operand : operands) {
                udf.addOperands(convertNode(operand, udfs));
            }
            return udf.setUdfIndex(UdfConverter.register(call, udfs)).build();
        }
        if (name == null) {
            throw new UnsupportedNativeException(
                    "function " + call.getOperator().getName() + " is not supported natively");
        }
        if (kind == SqlKind.SEARCH) {
            return Call.newBuilder()
                    .setFunction(name)
                    .addOperands(convertNode(operands.get(0), udfs))
                    .setSarg(sarg((RexLiteral) operands.get(1)))
                    .build();
        }
        if ((kind == SqlKind.AND || kind == SqlKind.OR) && operands.size() > 2) {
            // Calcite flattens AND/OR; Flink evaluates them left to right with short-circuit,
            // which is what a left-deep chain of binary calls reproduces.
            Expr left = convertNode(operands.get(0), udfs);
            for (int i = 1; i < operands.size(); i++) {
                Expr right = convertNode(operands.get(i), udfs);
                left =
                        Expr.newBuilder()
                                .setType(
                                        TypeConverter.toProto(
                                                FlinkTypeFactory.toLogicalType(call.getType())))
                                .setCall(
                                        Call.newBuilder()
                                                .setFunction(name)
                                                .addOperands(left)
                                                .addOperands(right))
                                .build();
            }
            return left.getCall();
        }
        if (("PLUS".equals(name)
                        || "MINUS".equals(name)
                        || "TIMES".equals(name)
                        || kind == SqlKind.DIVIDE
                        || kind == SqlKind.MOD
                        || kind == SqlKind.MINUS_PREFIX
                        || kind == SqlKind.PLUS_PREFIX)
                && !allNumeric(call)) {
            throw new UnsupportedNativeException(
                    "operator "
                            + call.getOperator().getName()
                            + " on "
                            + typesOf(call)
                            + " is not supported natively (numeric operands only)");
        }
        Call.Builder b = Call.newBuilder().setFunction(name);
        for (RexNode operand : operands) {
            b.addOperands(convertNode(operand, udfs));
        }
        return b.build();
    }

    /**
     * The plan name of a built-in function (Flink's own name in upper case, spaces as underscores),
     * or null for a user-defined function.
     */
    static String builtInName(SqlOperator operator) {
        if (operator instanceof BridgingSqlFunction) {
            FunctionDefinition definition = ((BridgingSqlFunction) operator).getDefinition();
            if (!(definition instanceof BuiltInFunctionDefinition)) {
                return null;
            }
            return ((BuiltInFunctionDefinition) definition)
                    .getName()
                    .toUpperCase(Locale.ROOT)
                    .replace(' ', '_');
        }
        if (operator instanceof ScalarSqlFunction || operator instanceof BridgingSqlAggFunction) {
            return null; // a legacy user-defined function, or an aggregate
        }
        String pkg = operator.getClass().getPackageName();
        if (!pkg.startsWith("org.apache.calcite.sql")
                && !pkg.startsWith("org.apache.flink.table.planner.functions.sql")) {
            return null;
        }
        return operator.getName().toUpperCase(Locale.ROOT).replace(' ', '_');
    }

    private static boolean allNumeric(RexCall call) {
        if (!FlinkTypeFactory.toLogicalType(call.getType()).is(LogicalTypeFamily.NUMERIC)) {
            return false;
        }
        for (RexNode operand : call.getOperands()) {
            if (!FlinkTypeFactory.toLogicalType(operand.getType()).is(LogicalTypeFamily.NUMERIC)) {
                return false;
            }
        }
        return true;
    }

    private static String typesOf(RexCall call) {
        StringBuilder s = new StringBuilder("(");
        for (int i = 0; i < call.getOperands().size(); i++) {
            s.append(i > 0 ? ", " : "")
                    .append(
                            FlinkTypeFactory.toLogicalType(call.getOperands().get(i).getType())
                                    .asSummaryString());
        }
        return s.append(")").toString();
    }

    private static Sarg sarg(RexLiteral literal) throws UnsupportedNativeException {
        LogicalType type = FlinkTypeFactory.toLogicalType(literal.getType());
        org.apache.calcite.util.Sarg<?> sarg =
                literal.getValueAs(org.apache.calcite.util.Sarg.class);
        Sarg.Builder b = Sarg.newBuilder();
        RexUnknownAs nullAs = sarg.nullAs;
        b.setNullAs(
                nullAs == RexUnknownAs.TRUE
                        ? Sarg.NullAs.IS_TRUE
                        : nullAs == RexUnknownAs.FALSE
                                ? Sarg.NullAs.IS_FALSE
                                : Sarg.NullAs.UNKNOWN);
        for (Range<?> range : sarg.rangeSet.asRanges()) {
            SargRange.Builder r = SargRange.newBuilder();
            if (range.hasLowerBound()) {
                r.setLowerType(bound(range.lowerBoundType()))
                        .setLower(value(range.lowerEndpoint(), type));
            }
            if (range.hasUpperBound()) {
                r.setUpperType(bound(range.upperBoundType()))
                        .setUpper(value(range.upperEndpoint(), type));
            }
            b.addRanges(r);
        }
        return b.build();
    }

    private static SargRange.BoundType bound(BoundType type) {
        return type == BoundType.CLOSED ? SargRange.BoundType.CLOSED : SargRange.BoundType.OPEN;
    }

    private static Literal literal(RexLiteral literal, LogicalType type)
            throws UnsupportedNativeException {
        if (literal.isNull()) {
            return Literal.newBuilder()
                    .setType(TypeConverter.toProto(type))
                    .setIsNull(true)
                    .build();
        }
        return value(literal.getValueAs(calciteValueClass(type)), type);
    }

    /** The class in which Calcite hands out a literal's value for {@link #value}. */
    private static Class<?> calciteValueClass(LogicalType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return Boolean.class;
            case CHAR:
            case VARCHAR:
                return String.class;
            case BINARY:
            case VARBINARY:
                return org.apache.calcite.avatica.util.ByteString.class;
            case DATE:
                return DateString.class;
            case TIME_WITHOUT_TIME_ZONE:
                return TimeString.class;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return TimestampString.class;
            default:
                return BigDecimal.class;
        }
    }

    /** A Calcite literal value (as stored in RexLiteral or a Sarg) as a plan Literal. */
    private static Literal value(Object value, LogicalType type) throws UnsupportedNativeException {
        Literal.Builder b = Literal.newBuilder().setType(TypeConverter.toProto(type));
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return b.setBoolValue((Boolean) value).build();
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
                return b.setIntValue(((BigDecimal) value).longValueExact()).build();
            case FLOAT:
            case DOUBLE:
                return b.setDoubleValue(
                                value instanceof BigDecimal
                                        ? ((BigDecimal) value).doubleValue()
                                        : ((Number) value).doubleValue())
                        .build();
            case DECIMAL:
                BigDecimal decimal = ((BigDecimal) value).setScale(((DecimalType) type).getScale());
                return b.setDecimalUnscaled(
                                ByteString.copyFrom(decimal.unscaledValue().toByteArray()))
                        .build();
            case CHAR:
            case VARCHAR:
                String text =
                        value instanceof NlsString
                                ? ((NlsString) value).getValue()
                                : value.toString();
                return b.setStringValue(ByteString.copyFrom(text.getBytes(StandardCharsets.UTF_8)))
                        .build();
            case BINARY:
            case VARBINARY:
                return b.setBinaryValue(
                                ByteString.copyFrom(
                                        ((org.apache.calcite.avatica.util.ByteString) value)
                                                .getBytes()))
                        .build();
            case DATE:
                return b.setIntValue(((DateString) value).getDaysSinceEpoch()).build();
            case INTERVAL_YEAR_MONTH:
            case INTERVAL_DAY_TIME:
                // Calcite holds months / milliseconds.
                return b.setIntValue(((BigDecimal) value).longValueExact()).build();
            case TIME_WITHOUT_TIME_ZONE:
                return b.setIntValue(((TimeString) value).getMillisOfDay()).build();
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                TimestampString ts = (TimestampString) value;
                return b.setTimestampValue(
                                TimestampValue.newBuilder()
                                        .setMillis(ts.getMillisSinceEpoch())
                                        .setNanoOfMilli(nanoOfMilli(ts)))
                        .build();
            default:
                throw new UnsupportedNativeException(
                        "literal of type " + type.asSummaryString() + " is not supported natively");
        }
    }

    private static int nanoOfMilli(TimestampString ts) {
        String s = ts.toString();
        int dot = s.indexOf('.');
        if (dot < 0) {
            return 0;
        }
        String fraction = (s.substring(dot + 1) + "000000000").substring(0, 9);
        return Integer.parseInt(fraction) % 1_000_000;
    }
}
