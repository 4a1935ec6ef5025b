// Date and time functions: EXTRACT (and YEAR, HOUR, DAYOFWEEK... which Flink plans as EXTRACT),
// FLOOR/CEIL(x TO unit), DATE_FORMAT, datetime +/- interval (DATETIME_PLUS / DATETIME_MINUS,
// which also carry TIMESTAMPADD and TIMESTAMPDIFF), REINTERPRET, TO_TIMESTAMP, TO_DATE and
// FROM_UNIXTIME, with Flink 2.2's rules (DateTimeUtils and the code generators ExtractCallGen,
// FloorCeilCallGen, ScalarOperatorGens.generateTemporalPlusMinus, StringCallGen).

#include <cstring>
#include <functional>
#include <optional>
#include <string>

#include "streamfusion/expression/function_registry.h"
#include "streamfusion/expression/jvm_calls.h"
#include "streamfusion/expression/nodes.h"
#include "streamfusion/expression/rowwise.h"
#include "streamfusion/expression/temporal_arrays.h"
#include "streamfusion/functions/decimal.h"
#include "streamfusion/functions/java_numeric.h"
#include "streamfusion/functions/legacy_date_parse.h"
#include "streamfusion/functions/temporal.h"
#include "streamfusion/functions/time_zone.h"
#include "streamfusion/functions/timestamp_pattern.h"

namespace streamfusion::expression {

namespace {

using functions::TimestampValue;
using functions::TimeUnit;
using functions::TimeZone;
using type::LogicalType;
using type::TypeKind;
using ZonePtr = std::shared_ptr<const TimeZone>;

// A function of already-compiled operands, computed row by row where all operands are non-NULL.
class TemporalFunction : public Expression {
 public:
  TemporalFunction(std::vector<ExprPtr> operands, LogicalType type, arrow::MemoryPool* pool)
      : operands_(std::move(operands)), type_(std::move(type)), pool_(pool) {}
  const LogicalType& type() const override { return type_; }
  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    SF_ASSIGN_OR_RAISE(auto args, EvaluateAll(operands_, input, selection));
    return Compute(args, selection, input.num_rows());
  }

 protected:
  virtual Result<ArrayPtr> Compute(const std::vector<ArrayPtr>& args, const Selection& selection,
                                   int64_t n) = 0;
  const LogicalType& operand_type(size_t i) const { return operands_[i]->type(); }

  std::vector<ExprPtr> operands_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
};

// ---- EXTRACT ----

class Extract final : public TemporalFunction {
 public:
  Extract(ExprPtr operand, TimeUnit unit, ZonePtr zone, LogicalType type, arrow::MemoryPool* pool)
      : TemporalFunction(Single(std::move(operand)), std::move(type), pool),
        unit_(unit),
        zone_(std::move(zone)) {}

 protected:
  Result<ArrayPtr> Compute(const std::vector<ArrayPtr>& args, const Selection& selection,
                           int64_t n) override {
    const arrow::ArrayData& in = *args[0]->data();
    if (in.type->id() == arrow::Type::NA) return arrow::MakeArrayOfNull(arrow::int64(), n, pool_);
    // Never fails: every row is computed (unselected rows too), the validity is the operand's.
    SF_ASSIGN_OR_RAISE(auto values, AllocateBytes(n * 8, pool_));
    int64_t* out = reinterpret_cast<int64_t*>(values->mutable_data());
    const TypeKind kind = operand_type(0).kind;
    if (kind == TypeKind::kDate) {
      const int32_t* d = in.GetValues<int32_t>(1);
      for (int64_t i = 0; i < n; ++i) out[i] = functions::ExtractFromDate(unit_, d[i]);
    } else if (kind == TypeKind::kTime) {
      const int32_t* t = in.GetValues<int32_t>(1);
      for (int64_t i = 0; i < n; ++i) out[i] = functions::ExtractFromTime(unit_, t[i]);
    } else {
      TimestampReader ts(in);
      if (zone_ != nullptr) {
        // DateTimeUtils.extractFromTimestamp: the TIMESTAMP rule on millis + TimeZone offset.
        for (int64_t i = 0; i < n; ++i) {
          if (!IsValid(in, i)) {
            out[i] = 0;
            continue;
          }
          const TimestampValue v = ts[i];
          out[i] = functions::ExtractFromTimestamp(
              unit_, v.millis + zone_->LegacyOffsetMillisAt(v.millis), v.nano_of_milli);
        }
      } else if (!operand_type(0).IsCompactTimestamp()) {
        for (int64_t i = 0; i < n; ++i) {
          const TimestampValue v = ts[i];
          out[i] = functions::ExtractFromTimestamp(unit_, v.millis, v.nano_of_milli);
        }
      } else {
        const int64_t* m = in.GetValues<int64_t>(1);
        switch (unit_) {  // the common units as straight loops
          case TimeUnit::kHour:
            for (int64_t i = 0; i < n; ++i) {
              out[i] = (m[i] % functions::kMillisPerDay) / functions::kMillisPerHour;
            }
            break;
          case TimeUnit::kMinute:
            for (int64_t i = 0; i < n; ++i) {
              out[i] = (m[i] % functions::kMillisPerHour) / functions::kMillisPerMinute;
            }
            break;
          case TimeUnit::kSecond:
            for (int64_t i = 0; i < n; ++i) {
              out[i] = (m[i] % functions::kMillisPerMinute) / functions::kMillisPerSecond;
            }
            break;
          default:
            for (int64_t i = 0; i < n; ++i) {
              out[i] = functions::ExtractFromTimestamp(unit_, m[i], 0);
            }
        }
      }
    }
    SF_ASSIGN_OR_RAISE(auto validity, CopyValidity(in, n, pool_));
    return MakeFixedArray(arrow::int64(), n, validity, values);
  }

 private:
  static std::vector<ExprPtr> Single(ExprPtr e) {
    std::vector<ExprPtr> v;
    v.push_back(std::move(e));
    return v;
  }
  TimeUnit unit_;
  ZonePtr zone_;  // set for TIMESTAMP_LTZ
};

Result<TimeUnit> UnitOperand(FunctionCall& call, size_t index) {
  SF_ASSIGN_OR_RAISE(std::string name, call.SymbolOperand(index));
  auto unit = functions::TimeUnitFromName(name);
  if (!unit) return call.Refuse("time unit " + name);
  return *unit;
}

Result<ExprPtr> CompileExtract(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2));
  SF_ASSIGN_OR_RAISE(TimeUnit unit, UnitOperand(call, 0));
  const LogicalType& t = call.operands[1]->type();
  ZonePtr zone;
  switch (t.kind) {
    case TypeKind::kDate:
      // Time-of-day units on a DATE take ExtractCallGen's generic path (days % factor).
      if (!functions::IsDateUnit(unit) && unit != TimeUnit::kEpoch) {
        return call.Refuse(std::string(functions::TimeUnitName(unit)) + " of a DATE");
      }
      break;
    case TypeKind::kTime:
      if (unit != TimeUnit::kHour && unit != TimeUnit::kMinute && unit != TimeUnit::kSecond &&
          unit != TimeUnit::kMillisecond) {
        return call.Refuse(std::string(functions::TimeUnitName(unit)) + " of a TIME");
      }
      break;
    case TypeKind::kTimestampLtz: {
      SF_ASSIGN_OR_RAISE(zone, SessionTimeZone(call.ctx));
      break;
    }
    case TypeKind::kTimestamp: break;
    default: return call.Refuse("operand type");
  }
  return ExprPtr(std::make_unique<Extract>(std::move(call.operands[1]), unit, std::move(zone),
                                           call.result, call.ctx.pool));
}

// ---- FLOOR / CEIL (x TO unit) ----

class FloorCeil final : public TemporalFunction {
 public:
  FloorCeil(std::vector<ExprPtr> operands, TimeUnit unit, bool floor, ZonePtr zone,
            LogicalType type, arrow::MemoryPool* pool)
      : TemporalFunction(std::move(operands), std::move(type), pool),
        unit_(unit),
        floor_(floor),
        zone_(std::move(zone)) {}

 protected:
  Result<ArrayPtr> Compute(const std::vector<ArrayPtr>& args, const Selection& selection,
                           int64_t n) override {
    const std::vector<ArrayPtr> value{args[0]};
    const arrow::ArrayData& in = *args[0]->data();
    switch (type_.kind) {
      case TypeKind::kDate: {
        FixedReader<int32_t> d(in);
        const bool date_unit = IsFloorDateUnit(unit_);
        return MapRows(value, selection, n, FixedWriter<int32_t>(arrow::date32(), pool_), pool_,
                       [&](int64_t i, FixedWriter<int32_t>& w) {
                         return w.Append(date_unit ? static_cast<int32_t>(functions::DateFloorCeil(
                                                         unit_, d[i], floor_))
                                                   : d[i]);
                       });
      }
      case TypeKind::kTime: {
        FixedReader<int32_t> t(in);
        return MapRows(value, selection, n, FixedWriter<int32_t>(type::ToArrow(type_), pool_),
                       pool_, [&](int64_t i, FixedWriter<int32_t>& w) {
                         return w.Append(functions::TimeFloorCeil(unit_, t[i], floor_));
                       });
      }
      default: {
        TimestampReader ts(in);
        return MapRows(
            value, selection, n, TimestampWriter(type_, pool_), pool_,
            [&](int64_t i, TimestampWriter& w) {
              const TimestampValue v = ts[i];
              if (zone_ != nullptr) {
                return w.Append(
                    {functions::TimestampLtzFloorCeil(
                         unit_, v.millis, zone_->LegacyOffsetMillisAt(v.millis), floor_),
                     0});
              }
              return w.Append(
                  {functions::TimestampFloorCeil(unit_, v.millis, v.nano_of_milli, floor_), 0});
            });
      }
    }
  }

 private:
  static bool IsFloorDateUnit(TimeUnit unit) {
    switch (unit) {
      case TimeUnit::kMillennium:
      case TimeUnit::kCentury:
      case TimeUnit::kDecade:
      case TimeUnit::kYear:
      case TimeUnit::kQuarter:
      case TimeUnit::kMonth:
      case TimeUnit::kWeek:
      case TimeUnit::kDay: return true;
      default: return false;
    }
  }
  TimeUnit unit_;
  bool floor_;
  ZonePtr zone_;
};

template <bool kFloor>
Result<ExprPtr> CompileFloorCeil(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2));
  SF_ASSIGN_OR_RAISE(TimeUnit unit, UnitOperand(call, 1));
  const LogicalType& t = call.operands[0]->type();
  const bool time_unit = unit == TimeUnit::kHour || unit == TimeUnit::kMinute ||
                         unit == TimeUnit::kSecond || unit == TimeUnit::kMillisecond;
  const bool date_unit = unit == TimeUnit::kMillennium || unit == TimeUnit::kCentury ||
                         unit == TimeUnit::kDecade || unit == TimeUnit::kYear ||
                         unit == TimeUnit::kQuarter || unit == TimeUnit::kMonth ||
                         unit == TimeUnit::kWeek || unit == TimeUnit::kDay;
  ZonePtr zone;
  switch (t.kind) {
    case TypeKind::kDate:
      if (!time_unit && !date_unit) return call.Refuse("unit of a DATE");
      break;
    case TypeKind::kTime:
      if (!time_unit) return call.Refuse("date unit of a TIME");
      break;
    case TypeKind::kTimestamp:
      if (!time_unit && !date_unit) return call.Refuse("unit");
      break;
    case TypeKind::kTimestampLtz: {
      if (!time_unit && !date_unit) return call.Refuse("unit");
      SF_ASSIGN_OR_RAISE(zone, SessionTimeZone(call.ctx));
      break;
    }
    default: return call.Refuse("operand type");
  }
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(call.operands[0]));
  return ExprPtr(std::make_unique<FloorCeil>(std::move(operands), unit, kFloor, std::move(zone),
                                             call.result, call.ctx.pool));
}

// ---- java.text.SimpleDateFormat (legacy_date_parse.h) ----

// SimpleDateFormat(pattern) in the JVM default locale (legacy_date_parse.h): reproduced for the
// locales whose integer format and calendar are these (lines of JvmText.integerFormat: zero,
// minus, exponent, infinity, NaN, prefixes and suffixes, calendar type), with no negative
// subpattern (SimpleDateFormat's trailing-minus rule when parsing).
constexpr std::string_view kLegacyLocale = "0\n-\nE\n\u221E\nNaN\n\n-\n\n\ngregory\n";

Status CheckLegacyLocale(const FunctionCall& call) {
  const JvmIntegerFormatFn integer_format = GetJvmIntegerFormat();
  if (integer_format == nullptr) return call.Refuse("needs the JVM locale's number format");
  SF_ASSIGN_OR_RAISE(const std::string symbols, integer_format());
  const size_t last_line = symbols.rfind('\n');
  if (last_line == std::string::npos ||
      std::string_view(symbols).substr(0, last_line + 1) != kLegacyLocale ||
      symbols.find(';', last_line) != std::string::npos) {
    return call.Refuse(
        "the JVM locale's integer format or calendar differs from the one reproduced ('0', "
        "'-', 'E', '\u221E', 'NaN', Gregorian)");
  }
  return Status::OK();
}

// The literal pattern operand `i`, else `fallback` where the call has no such operand.
Result<std::string> LegacyPatternOperand(const FunctionCall& call, size_t i,
                                         std::string_view fallback) {
  if (call.operands.size() <= i) return std::string(fallback);
  const plan::Literal* literal = call.LiteralOperand(i);
  if (literal == nullptr || literal->is_null()) {
    return call.Refuse("the pattern must be a non-NULL literal");
  }
  return literal->string_value();
}

// DateTimeUtils.TIMESTAMP_FORMAT_STRING
constexpr std::string_view kLegacyTimestampPattern = "yyyy-MM-dd HH:mm:ss";

// ---- DATE_FORMAT ----

class DateFormat final : public TemporalFunction {
 public:
  DateFormat(std::vector<ExprPtr> operands, functions::DateTimePattern pattern, ZonePtr zone,
             LogicalType type, arrow::MemoryPool* pool)
      : TemporalFunction(std::move(operands), std::move(type), pool),
        pattern_(std::move(pattern)),
        zone_(std::move(zone)) {}

 protected:
  Result<ArrayPtr> Compute(const std::vector<ArrayPtr>& args, const Selection& selection,
                           int64_t n) override {
    TimestampReader ts(*args[0]->data());
    std::string text;
    // Rows of one stream are mostly close in time: the text of the previous row is reused while
    // the local time stays within the pattern's resolution (e.g. the same minute).
    const int64_t resolution = pattern_.ResolutionMillis();
    int64_t last_unit = INT64_MIN;
    return MapRows(args, selection, n, Utf8Writer(pool_), pool_, [&](int64_t i, Utf8Writer& w) {
      TimestampValue v = ts[i];
      // LocalDateTime.ofInstant(ts.toInstant(), zone): UTC for TIMESTAMP.
      if (zone_ != nullptr) v.millis += zone_->OffsetMillisAt(v.millis);
      if (resolution > 0) {
        const int64_t unit = functions::FloorDiv(v.millis, resolution);
        if (unit == last_unit) return w.Append(text);
        last_unit = unit;
      }
      text.clear();
      pattern_.Format(functions::ToLocalDateTime(v), &text);
      return w.Append(text);
    });
  }

 private:
  functions::DateTimePattern pattern_;
  ZonePtr zone_;
};

// DATE_FORMAT(text, pattern): DateTimeUtils.formatTimestampString parses `text` as
// "yyyy-MM-dd HH:mm:ss" and formats it with `pattern`, both SimpleDateFormat in UTC; NULL where
// the text does not parse.
class DateFormatString final : public TemporalFunction {
 public:
  DateFormatString(std::vector<ExprPtr> operands, functions::LegacyDateParser parser,
                   functions::LegacyDateFormatter format, LogicalType type, arrow::MemoryPool* pool)
      : TemporalFunction(std::move(operands), std::move(type), pool),
        parser_(std::move(parser)),
        format_(std::move(format)) {}

 protected:
  Result<ArrayPtr> Compute(const std::vector<ArrayPtr>& args, const Selection& selection,
                           int64_t n) override {
    StringReader s(*args[0]->data());
    std::string text;
    return MapRows(args, selection, n, Utf8Writer(pool_), pool_, [&](int64_t i, Utf8Writer& w) {
      const std::optional<int64_t> millis = parser_.ParseMillis(s[i], 0);
      if (!millis) return w.AppendNull();
      text.clear();
      format_.Format(*millis, &text);
      return w.Append(text);
    });
  }

 private:
  functions::LegacyDateParser parser_;
  functions::LegacyDateFormatter format_;
};

// The JVM's SimpleDateFormat texts for LegacyDateFormatter, when a JVM is there.
functions::LegacyDateFormatter::TextFormatter JvmLegacyTexts() {
  if (const JvmLegacyFormatFn format = GetJvmLegacyFormat()) return format;
  return nullptr;
}

Result<ExprPtr> CompileDateFormatString(FunctionCall& call) {
  SF_ASSIGN_OR_RAISE(const std::string pattern, LegacyPatternOperand(call, 1, ""));
  SF_RETURN_NOT_OK(CheckLegacyLocale(call));
  SF_ASSIGN_OR_RAISE(auto parser, functions::LegacyDateParser::Compile(kLegacyTimestampPattern));
  auto format = functions::LegacyDateFormatter::Compile(pattern, JvmLegacyTexts());
  if (!format.ok()) return call.Refuse(format.status().message());
  std::vector<ExprPtr> args;
  args.push_back(std::move(call.operands[0]));
  return ExprPtr(std::make_unique<DateFormatString>(
      std::move(args), std::move(parser), std::move(*format), call.result, call.ctx.pool));
}

Result<ExprPtr> CompileDateFormat(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2));
  const LogicalType& t = call.operands[0]->type();
  if (t.IsString()) return CompileDateFormatString(call);
  if (!t.IsTimestamp()) return call.Refuse("operand type");
  const plan::Literal* pattern = call.LiteralOperand(1);
  if (pattern == nullptr || pattern->is_null()) {
    return call.Refuse("the pattern must be a non-NULL literal");
  }
  functions::DateTimePattern::TextFormatter texts;
  if (const JvmFormatFn format = GetJvmFormat()) texts = format;
  auto compiled = functions::DateTimePattern::Compile(pattern->string_value(), texts);
  if (!compiled.ok()) return call.Refuse(compiled.status().message());
  ZonePtr zone;
  if (t.kind == TypeKind::kTimestampLtz) {
    SF_ASSIGN_OR_RAISE(zone, SessionTimeZone(call.ctx));
  }
  std::vector<ExprPtr> args;
  args.push_back(std::move(call.operands[0]));
  return ExprPtr(std::make_unique<DateFormat>(std::move(args), std::move(*compiled),
                                              std::move(zone), call.result, call.ctx.pool));
}

// ---- DATETIME_PLUS / DATETIME_MINUS ----

enum class Arith {
  kDatePlusDayTime,       // DATE +- INTERVAL DAY TO SECOND -> DATE
  kDatePlusDayTimeTs,     // DATE +- INTERVAL DAY TO SECOND -> TIMESTAMP
  kDatePlusMonths,        // DATE +- INTERVAL YEAR TO MONTH
  kTimePlusDayTime,       // TIME +- INTERVAL DAY TO SECOND
  kTimePlusMonths,        // TIME +- INTERVAL YEAR TO MONTH (unchanged)
  kTimestampPlusDayTime,  // TIMESTAMP(_LTZ) +- INTERVAL DAY TO SECOND
  kTimestampPlusMonths,   // TIMESTAMP(_LTZ) +- INTERVAL YEAR TO MONTH
  kDiffMillis,            // datetime - datetime -> INTERVAL DAY TO SECOND
  kDiffMonths,            // datetime - datetime -> INTERVAL YEAR TO MONTH
};

class DatetimeArithmetic final : public TemporalFunction {
 public:
  DatetimeArithmetic(std::vector<ExprPtr> operands, Arith kind, bool plus, LogicalType type,
                     arrow::MemoryPool* pool)
      : TemporalFunction(std::move(operands), std::move(type), pool), kind_(kind), plus_(plus) {}

 protected:
  Result<ArrayPtr> Compute(const std::vector<ArrayPtr>& args, const Selection& selection,
                           int64_t n) override {
    const arrow::ArrayData& l = *args[0]->data();
    const arrow::ArrayData& r = *args[1]->data();
    const int64_t sign = plus_ ? 1 : -1;
    switch (kind_) {
      case Arith::kDatePlusDayTime: {
        FixedReader<int32_t> d(l);
        FixedReader<int64_t> ms(r);
        return MapRows(args, selection, n, FixedWriter<int32_t>(arrow::date32(), pool_), pool_,
                       [&](int64_t i, FixedWriter<int32_t>& w) -> Status {
                         const int64_t days = ms[i] / functions::kMillisPerDay;
                         if (days < INT32_MIN || days > INT32_MAX) {
                           return UserError("integer overflow");  // Math.toIntExact
                         }
                         const uint32_t delta = static_cast<uint32_t>(days);
                         const uint32_t v = plus_ ? static_cast<uint32_t>(d[i]) + delta
                                                  : static_cast<uint32_t>(d[i]) - delta;
                         return w.Append(static_cast<int32_t>(v));
                       });
      }
      case Arith::kDatePlusDayTimeTs: {
        FixedReader<int32_t> d(l);
        FixedReader<int64_t> ms(r);
        return MapRows(
            args, selection, n, TimestampWriter(type_, pool_), pool_,
            [&](int64_t i, TimestampWriter& w) {
              return w.Append({WrapAdd(d[i] * functions::kMillisPerDay, sign, ms[i]), 0});
            });
      }
      case Arith::kDatePlusMonths: {
        FixedReader<int32_t> d(l);
        FixedReader<int32_t> months(r);
        return MapRows(args, selection, n, FixedWriter<int32_t>(arrow::date32(), pool_), pool_,
                       [&](int64_t i, FixedWriter<int32_t>& w) {
                         return w.Append(functions::AddMonthsToDate(d[i], Signed(months[i])));
                       });
      }
      case Arith::kTimePlusDayTime: {
        FixedReader<int32_t> t(l);
        FixedReader<int64_t> ms(r);
        return MapRows(args, selection, n, FixedWriter<int32_t>(type::ToArrow(type_), pool_), pool_,
                       [&](int64_t i, FixedWriter<int32_t>& w) {
                         const int64_t delta = ms[i] % functions::kMillisPerDay;
                         const int64_t v = (t[i] + functions::kMillisPerDay) + sign * delta;
                         return w.Append(static_cast<int32_t>(v % functions::kMillisPerDay));
                       });
      }
      case Arith::kTimePlusMonths: {
        FixedReader<int32_t> t(l);
        return MapRows(args, selection, n, FixedWriter<int32_t>(type::ToArrow(type_), pool_), pool_,
                       [&](int64_t i, FixedWriter<int32_t>& w) { return w.Append(t[i]); });
      }
      case Arith::kTimestampPlusDayTime: {
        TimestampReader ts(l);
        FixedReader<int64_t> ms(r);
        return MapRows(args, selection, n, TimestampWriter(type_, pool_), pool_,
                       [&](int64_t i, TimestampWriter& w) {
                         const TimestampValue v = ts[i];
                         return w.Append({WrapAdd(v.millis, sign, ms[i]), v.nano_of_milli});
                       });
      }
      case Arith::kTimestampPlusMonths: {
        TimestampReader ts(l);
        FixedReader<int32_t> months(r);
        return MapRows(args, selection, n, TimestampWriter(type_, pool_), pool_,
                       [&](int64_t i, TimestampWriter& w) {
                         const TimestampValue v = ts[i];
                         return w.Append({functions::AddMonthsToMillis(v.millis, Signed(months[i])),
                                          v.nano_of_milli});
                       });
      }
      case Arith::kDiffMillis: {
        auto left = Millis(l, operand_type(0));
        auto right = Millis(r, operand_type(1));
        return MapRows(args, selection, n, FixedWriter<int64_t>(arrow::int64(), pool_), pool_,
                       [&](int64_t i, FixedWriter<int64_t>& w) {
                         return w.Append(WrapAdd(left(i), -1, right(i)));
                       });
      }
      case Arith::kDiffMonths: {
        // With a TIMESTAMP on either side subtractMonths(long, long) on millis; otherwise
        // subtractMonths(int, int) on the raw values (days, or a TIME's millis as Flink passes
        // them).
        if (!operand_type(0).IsTimestamp() && !operand_type(1).IsTimestamp()) {
          FixedReader<int32_t> ld(l);
          FixedReader<int32_t> rd(r);
          return MapRows(args, selection, n, FixedWriter<int32_t>(arrow::int32(), pool_), pool_,
                         [&](int64_t i, FixedWriter<int32_t>& w) {
                           return w.Append(functions::SubtractMonths(ld[i], rd[i]));
                         });
        }
        auto left = Millis(l, operand_type(0));
        auto right = Millis(r, operand_type(1));
        return MapRows(args, selection, n, FixedWriter<int32_t>(arrow::int32(), pool_), pool_,
                       [&](int64_t i, FixedWriter<int32_t>& w) {
                         return w.Append(functions::SubtractMonthsMillis(left(i), right(i)));
                       });
      }
    }
    return InternalError("datetime arithmetic kind");
  }

 private:
  int32_t Signed(int32_t months) const {
    return plus_ ? months : static_cast<int32_t>(0u - static_cast<uint32_t>(months));
  }
  static int64_t WrapAdd(int64_t a, int64_t sign, int64_t b) {
    const uint64_t ub = static_cast<uint64_t>(b);
    return static_cast<int64_t>(sign > 0 ? static_cast<uint64_t>(a) + ub
                                         : static_cast<uint64_t>(a) - ub);
  }
  // The millisecond term generateTemporalPlusMinus uses for a TIMESTAMP (getMillisecond()), a
  // DATE (days * MILLIS_PER_DAY) or a TIME (its millis).
  static std::function<int64_t(int64_t)> Millis(const arrow::ArrayData& data,
                                                const LogicalType& t) {
    if (t.kind == TypeKind::kDate || t.kind == TypeKind::kTime) {
      const int32_t* v = data.GetValues<int32_t>(1);
      const int64_t scale = t.kind == TypeKind::kDate ? functions::kMillisPerDay : 1;
      return [v, scale](int64_t i) { return v[i] * scale; };
    }
    TimestampReader ts(data);
    return [ts](int64_t i) { return ts.millis(i); };
  }

  Arith kind_;
  bool plus_;
};

template <bool kPlus>
Result<ExprPtr> CompileDatetimeArithmetic(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2));
  const TypeKind l = call.operands[0]->type().kind;
  const TypeKind r = call.operands[1]->type().kind;
  const TypeKind result = call.result.kind;
  std::optional<Arith> kind;
  const bool day_time = r == TypeKind::kIntervalDayTime;
  const bool months = r == TypeKind::kIntervalYearMonth;
  const bool ts = l == TypeKind::kTimestamp || l == TypeKind::kTimestampLtz;
  if (l == TypeKind::kDate && day_time) {
    if (result == TypeKind::kDate) kind = Arith::kDatePlusDayTime;
    if (result == TypeKind::kTimestamp) kind = Arith::kDatePlusDayTimeTs;
  } else if (l == TypeKind::kDate && months) {
    kind = Arith::kDatePlusMonths;
  } else if (l == TypeKind::kTime && day_time) {
    kind = Arith::kTimePlusDayTime;
  } else if (l == TypeKind::kTime && months) {
    kind = Arith::kTimePlusMonths;
  } else if (ts && day_time) {
    kind = Arith::kTimestampPlusDayTime;
  } else if (ts && months) {
    kind = Arith::kTimestampPlusMonths;
  } else if (!kPlus) {
    auto plain = [](TypeKind k) {
      return k == TypeKind::kTimestamp || k == TypeKind::kDate || k == TypeKind::kTime;
    };
    const bool ltz = l == TypeKind::kTimestampLtz && r == TypeKind::kTimestampLtz;
    if (result == TypeKind::kIntervalYearMonth && (ltz || (plain(l) && plain(r)))) {
      kind = Arith::kDiffMonths;
    } else if (result == TypeKind::kIntervalDayTime &&
               (ltz || (l != TypeKind::kTime && r != TypeKind::kTime && plain(l) && plain(r)))) {
      kind = Arith::kDiffMillis;
    }
  }
  if (!kind) return call.Refuse("operand types");
  return ExprPtr(std::make_unique<DatetimeArithmetic>(std::move(call.operands), *kind, kPlus,
                                                      call.result, call.ctx.pool));
}

// ---- REINTERPRET ----

// ScalarOperatorGens.generateReinterpret between types with the same internal value (DATE,
// TIME, INTERVAL and integers): the operand with the result type.
class Retyped final : public Expression {
 public:
  Retyped(ExprPtr child, LogicalType type, arrow::MemoryPool* pool)
      : child_(std::move(child)), type_(std::move(type)), pool_(pool) {}
  const LogicalType& type() const override { return type_; }
  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    SF_ASSIGN_OR_RAISE(auto value, child_->Evaluate(input, selection));
    const auto target = type::ToArrow(type_);
    if (value->type()->Equals(*target)) return value;
    if (value->type_id() == arrow::Type::NA) {
      return arrow::MakeArrayOfNull(target, value->length(), pool_);
    }
    auto data = value->data()->Copy();
    data->type = target;
    return arrow::MakeArray(data);
  }

 private:
  ExprPtr child_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
};

Result<ExprPtr> CompileReinterpret(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1));
  const TypeKind from = call.operands[0]->type().kind;
  const TypeKind to = call.result.kind;
  auto int32_like = [](TypeKind k) {
    return k == TypeKind::kInt || k == TypeKind::kDate || k == TypeKind::kTime ||
           k == TypeKind::kIntervalYearMonth;
  };
  auto int64_like = [](TypeKind k) {
    return k == TypeKind::kBigInt || k == TypeKind::kIntervalDayTime;
  };
  const bool same_timestamp = (from == TypeKind::kTimestamp || from == TypeKind::kTimestampLtz) &&
                              from == to &&
                              call.operands[0]->type().precision == call.result.precision;
  if ((int32_like(from) && int32_like(to)) || (int64_like(from) && int64_like(to)) ||
      same_timestamp) {
    // Same representation; a time attribute materialized as its own type is one of these.
    return ExprPtr(
        std::make_unique<Retyped>(std::move(call.operands[0]), call.result, call.ctx.pool));
  }
  if ((int32_like(from) && to == TypeKind::kBigInt) ||
      (from == TypeKind::kTimestamp && call.operands[0]->type().IsCompactTimestamp() &&
       to == TypeKind::kBigInt)) {
    // Widening (DATE/TIME/INTERVAL MONTH -> BIGINT) and TIMESTAMP.getMillisecond().
    if (from == TypeKind::kTimestamp) {
      return ExprPtr(
          std::make_unique<Retyped>(std::move(call.operands[0]), call.result, call.ctx.pool));
    }
    LogicalType as_int = call.operands[0]->type();
    as_int.kind = TypeKind::kInt;
    auto retyped = std::make_unique<Retyped>(std::move(call.operands[0]), as_int, call.ctx.pool);
    return MakeCast(std::move(retyped), call.result, call.ctx.pool);
  }
  return call.Refuse("reinterpretation");
}

// ---- TO_TIMESTAMP / TO_DATE ----

class ToTimestamp final : public TemporalFunction {
 public:
  using TemporalFunction::TemporalFunction;

 protected:
  Result<ArrayPtr> Compute(const std::vector<ArrayPtr>& args, const Selection& selection,
                           int64_t n) override {
    StringReader s(*args[0]->data());
    // StringCallGen wraps parseTimestampData(String) in try/catch: NULL when unparsable.
    return MapRows(args, selection, n, TimestampWriter(type_, pool_), pool_,
                   [&](int64_t i, TimestampWriter& w) {
                     auto ts = functions::ParseTimestamp(s[i], 3);
                     return ts ? w.Append(*ts) : w.AppendNull();
                   });
  }
};

class ToDate final : public TemporalFunction {
 public:
  using TemporalFunction::TemporalFunction;

 protected:
  Result<ArrayPtr> Compute(const std::vector<ArrayPtr>& args, const Selection& selection,
                           int64_t n) override {
    StringReader s(*args[0]->data());
    return MapRows(args, selection, n, FixedWriter<int32_t>(arrow::date32(), pool_), pool_,
                   [&](int64_t i, FixedWriter<int32_t>& w) -> Status {
                     SF_ASSIGN_OR_RAISE(auto date, functions::ParseDate(s[i]));
                     return date ? w.Append(*date) : w.AppendNull();
                   });
  }
};

// TO_TIMESTAMP(text, pattern): DateTimeUtils.parseTimestampData(text, pattern) under the
// generated code's catch-all (timestamp_pattern.h). Texts are decided natively where the
// pattern's parsing and resolution are reproduced; the batch's others (java.sql-style texts the
// pattern does not parse, whose fallback depends on the JVM's default time zone) go to Flink's
// own function in one JVM call.
class ToTimestampWithFormat final : public TemporalFunction {
 public:
  ToTimestampWithFormat(std::vector<ExprPtr> operands, functions::TimestampPatternParser parser,
                        std::string pattern, JvmParseTimestampsFn jvm, LogicalType type,
                        arrow::MemoryPool* pool)
      : TemporalFunction(std::move(operands), std::move(type), pool),
        parser_(std::move(parser)),
        pattern_(std::move(pattern)),
        jvm_(jvm) {}

 protected:
  Result<ArrayPtr> Compute(const std::vector<ArrayPtr>& args, const Selection& selection,
                           int64_t n) override {
    using Outcome = functions::TimestampPatternParser::Outcome;
    // Every row's outcome first (NULL and unselected rows are kNull), in row order.
    std::vector<int64_t> millis;
    std::vector<Outcome> outcomes;
    struct Collector {
      std::vector<int64_t>* millis;
      std::vector<Outcome>* outcomes;
      Status Reserve(int64_t rows) {
        millis->reserve(static_cast<size_t>(rows));
        outcomes->reserve(static_cast<size_t>(rows));
        return Status::OK();
      }
      Status Add(Outcome outcome, int64_t value) {
        millis->push_back(value);
        outcomes->push_back(outcome);
        return Status::OK();
      }
      Status AppendNull() { return Add(Outcome::kNull, 0); }
      Result<ArrayPtr> Finish() { return ArrayPtr(); }
    };
    StringReader text(*args[0]->data());
    std::vector<std::string_view> pending;
    SF_RETURN_NOT_OK(MapRows(args, selection, n, Collector{&millis, &outcomes}, pool_,
                             [&](int64_t i, Collector& rows) {
                               int64_t value = 0;
                               const Outcome outcome = parser_.Parse(text[i], &value);
                               if (outcome == Outcome::kJvm) pending.push_back(text[i]);
                               return rows.Add(outcome, value);
                             })
                         .status());
    std::vector<std::optional<int64_t>> decided;
    if (!pending.empty()) SF_RETURN_NOT_OK(jvm_(pattern_, pending, &decided));
    if (decided.size() != pending.size()) {
      return InternalError("the JVM parsed ", decided.size(), " of ", pending.size(), " texts");
    }
    TimestampWriter w(type_, pool_);
    SF_RETURN_NOT_OK(w.Reserve(n));
    size_t next = 0;
    for (int64_t i = 0; i < n; ++i) {
      std::optional<int64_t> value;
      const auto row = static_cast<size_t>(i);
      if (outcomes[row] == Outcome::kValue) value = millis[row];
      if (outcomes[row] == Outcome::kJvm) value = decided[next++];
      SF_RETURN_NOT_OK(value ? w.Append(functions::TimestampValue{*value, 0}) : w.AppendNull());
    }
    return w.Finish();
  }

 private:
  functions::TimestampPatternParser parser_;
  std::string pattern_;
  JvmParseTimestampsFn jvm_;
};

Result<ExprPtr> CompileToTimestamp(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1, 2));
  if (!call.operands[0]->type().IsString()) return call.Refuse("operand type");
  if (call.operands.size() == 1) {
    return ExprPtr(
        std::make_unique<ToTimestamp>(std::move(call.operands), call.result, call.ctx.pool));
  }
  const plan::Literal* pattern = call.LiteralOperand(1);
  if (pattern == nullptr || pattern->is_null()) {
    return call.Refuse("the pattern must be a non-NULL literal");
  }
  auto parser = functions::TimestampPatternParser::Compile(pattern->string_value());
  if (!parser.ok()) return call.Refuse(parser.status().message());
  const JvmParseTimestampsFn jvm = GetJvmParseTimestamps();
  if (jvm == nullptr) return call.Refuse("texts the pattern does not parse need the JVM");
  std::vector<ExprPtr> args;
  args.push_back(std::move(call.operands[0]));
  return ExprPtr(std::make_unique<ToTimestampWithFormat>(std::move(args), std::move(*parser),
                                                         pattern->string_value(), jvm, call.result,
                                                         call.ctx.pool));
}

// TO_DATE(text, pattern): DateTimeUtils.parseDate(String, String), SimpleDateFormat parsing in
// UTC; a text that does not parse gives the date of Long.MIN_VALUE millis, as Flink's does.
class ToDateWithFormat final : public TemporalFunction {
 public:
  ToDateWithFormat(std::vector<ExprPtr> operands, functions::LegacyDateParser parser,
                   LogicalType type, arrow::MemoryPool* pool)
      : TemporalFunction(std::move(operands), std::move(type), pool), parser_(std::move(parser)) {}

 protected:
  Result<ArrayPtr> Compute(const std::vector<ArrayPtr>& args, const Selection& selection,
                           int64_t n) override {
    StringReader s(*args[0]->data());
    return MapRows(args, selection, n, FixedWriter<int32_t>(arrow::date32(), pool_), pool_,
                   [&](int64_t i, FixedWriter<int32_t>& w) {
                     return w.Append(functions::LegacyEpochDay(parser_.ParseMillis(s[i], 0)));
                   });
  }

 private:
  functions::LegacyDateParser parser_;
};

Result<ExprPtr> CompileToDate(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1, 2));
  if (!call.operands[0]->type().IsString()) return call.Refuse("operand type");
  if (call.operands.size() == 2) {
    SF_ASSIGN_OR_RAISE(const std::string pattern, LegacyPatternOperand(call, 1, ""));
    SF_RETURN_NOT_OK(CheckLegacyLocale(call));
    auto parser = functions::LegacyDateParser::Compile(pattern);
    if (!parser.ok()) return call.Refuse(parser.status().message());
    std::vector<ExprPtr> args;
    args.push_back(std::move(call.operands[0]));
    return ExprPtr(std::make_unique<ToDateWithFormat>(std::move(args), std::move(*parser),
                                                      call.result, call.ctx.pool));
  }
  return ExprPtr(std::make_unique<ToDate>(std::move(call.operands), call.result, call.ctx.pool));
}

// ---- FROM_UNIXTIME ----

// FROM_UNIXTIME(seconds[, pattern]): DateTimeUtils.formatUnixTimestamp, SimpleDateFormat in the
// session zone over new Date(seconds * 1000) (the multiply wraps as Java's long does), with
// java.util.TimeZone offsets.
class FromUnixtime final : public TemporalFunction {
 public:
  FromUnixtime(std::vector<ExprPtr> operands, functions::LegacyDateFormatter format, ZonePtr zone,
               LogicalType type, arrow::MemoryPool* pool)
      : TemporalFunction(std::move(operands), std::move(type), pool),
        format_(std::move(format)),
        zone_(std::move(zone)) {}

 protected:
  Result<ArrayPtr> Compute(const std::vector<ArrayPtr>& args, const Selection& selection,
                           int64_t n) override {
    FixedReader<int64_t> seconds(*args[0]->data());
    std::string text;
    return MapRows(args, selection, n, Utf8Writer(pool_), pool_, [&](int64_t i, Utf8Writer& w) {
      const int64_t millis = static_cast<int64_t>(static_cast<uint64_t>(seconds[i]) * 1000u);
      text.clear();
      format_.Format(millis + zone_->LegacyOffsetMillisAt(millis), &text);
      return w.Append(text);
    });
  }

 private:
  functions::LegacyDateFormatter format_;
  ZonePtr zone_;
};

Result<ExprPtr> CompileFromUnixtime(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1, 2));
  if (!call.operands[0]->type().IsIntegral()) return call.Refuse("operand type");
  SF_ASSIGN_OR_RAISE(const std::string pattern,
                     LegacyPatternOperand(call, 1, kLegacyTimestampPattern));
  SF_RETURN_NOT_OK(CheckLegacyLocale(call));
  auto format = functions::LegacyDateFormatter::Compile(pattern, JvmLegacyTexts());
  if (!format.ok()) return call.Refuse(format.status().message());
  SF_ASSIGN_OR_RAISE(auto zone, SessionTimeZone(call.ctx));
  ExprPtr operand = std::move(call.operands[0]);
  if (operand->type().kind != TypeKind::kBigInt) {
    SF_ASSIGN_OR_RAISE(operand,
                       MakeCast(std::move(operand), MakeType(TypeKind::kBigInt), call.ctx.pool));
  }
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(operand));
  return ExprPtr(std::make_unique<FromUnixtime>(std::move(operands), std::move(*format),
                                                std::move(zone), call.result, call.ctx.pool));
}

// ---- TO_TIMESTAMP_LTZ(numeric[, precision]) ----

// ToTimestampLtzFunction / DateTimeUtils.toTimestampData: epoch seconds (precision 0) or
// milliseconds (3) to an instant; NULL outside 0000-01-01 .. 9999-12-31 23:59:59.999 UTC.
class ToTimestampLtz final : public TemporalFunction {
 public:
  ToTimestampLtz(std::vector<ExprPtr> operands, bool seconds, LogicalType type,
                 arrow::MemoryPool* pool)
      : TemporalFunction(std::move(operands), std::move(type), pool), seconds_(seconds) {}

 protected:
  Result<ArrayPtr> Compute(const std::vector<ArrayPtr>& args, const Selection& selection,
                           int64_t n) override {
    constexpr int64_t kMinMillis = -62167219200000LL;
    constexpr int64_t kMaxMillis = 253402300799999LL;
    constexpr int64_t kMinSeconds = -62167219200LL;
    constexpr int64_t kMaxSeconds = 253402300799LL;
    const LogicalType& t = operand_type(0);
    const arrow::ArrayData& in = *args[0]->data();
    auto emit = [&](TimestampWriter& w, int64_t millis) {
      if (millis < kMinMillis || millis > kMaxMillis) return w.AppendNull();
      return w.Append({millis, 0});
    };
    if (t.IsFloating()) {
      const bool is_float = t.kind == TypeKind::kFloat;
      const float* f = is_float ? in.GetValues<float>(1) : nullptr;
      const double* d = is_float ? nullptr : in.GetValues<double>(1);
      return MapRows(args, selection, n, TimestampWriter(type_, pool_), pool_,
                     [&](int64_t i, TimestampWriter& w) {
                       const double v = is_float ? static_cast<double>(f[i]) : d[i];
                       if (!seconds_) return emit(w, functions::JavaCast<int64_t>(v));
                       if (!(kMinSeconds <= v && v <= kMaxSeconds)) return w.AppendNull();
                       return emit(w, functions::JavaCast<int64_t>(v * 1000));
                     });
    }
    if (t.kind == TypeKind::kDecimal) {
      return MapRows(args, selection, n, TimestampWriter(type_, pool_), pool_,
                     [&](int64_t i, TimestampWriter& w) {
                       functions::int128_t unscaled;
                       const auto& dec = in.GetValues<arrow::Decimal128>(1)[i];
                       unscaled = (static_cast<functions::int128_t>(dec.high_bits()) << 64) |
                                  dec.low_bits();
                       // BigDecimal.setScale(0, DOWN).longValue(): the low 64 bits.
                       const int64_t whole = functions::DecimalToLong(unscaled, t.scale);
                       if (seconds_) {
                         return emit(w, static_cast<int64_t>(static_cast<uint64_t>(whole) * 1000u));
                       }
                       return emit(w, whole);
                     });
    }
    // Integral: Number.longValue().
    auto value = [&](int64_t i) -> int64_t {
      switch (t.kind) {
        case TypeKind::kTinyInt: return in.GetValues<int8_t>(1)[i];
        case TypeKind::kSmallInt: return in.GetValues<int16_t>(1)[i];
        case TypeKind::kInt: return in.GetValues<int32_t>(1)[i];
        default: return in.GetValues<int64_t>(1)[i];
      }
    };
    return MapRows(args, selection, n, TimestampWriter(type_, pool_), pool_,
                   [&](int64_t i, TimestampWriter& w) {
                     const int64_t v = value(i);
                     if (!seconds_) return emit(w, v);
                     if (v < kMinSeconds || v > kMaxSeconds) return w.AppendNull();
                     return emit(w, v * 1000);
                   });
  }

 private:
  bool seconds_;
};

Result<ExprPtr> CompileToTimestampLtz(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1, 2));
  const LogicalType& t = call.operands[0]->type();
  if (!t.IsIntegral() && !t.IsFloating() && t.kind != TypeKind::kDecimal) {
    return call.Refuse("string forms parse with DateTimeFormatter patterns");
  }
  int64_t precision = 3;
  if (call.operands.size() == 2) {
    const plan::Literal* p = call.LiteralOperand(1);
    if (p == nullptr || p->is_null()) return call.Refuse("the precision must be a literal");
    precision = p->int_value();
  }
  // Other precisions raise Flink's TableException at run time.
  if (precision != 0 && precision != 3) return call.Refuse("precision other than 0 or 3");
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(call.operands[0]));
  return ExprPtr(std::make_unique<ToTimestampLtz>(std::move(operands), precision == 0, call.result,
                                                  call.ctx.pool));
}

// INTERVAL * integer (TIMESTAMPADD with a non-literal amount): Flink's generated code is
// `(R) ((R) interval * (R) n)` with R = long (DAY TO SECOND) or int (YEAR TO MONTH), so the
// product wraps like Java and a BIGINT factor of a YEAR TO MONTH interval is truncated to int.
class IntervalTimes final : public Expression {
 public:
  IntervalTimes(std::vector<ExprPtr> operands, LogicalType type, arrow::MemoryPool* pool)
      : operands_(std::move(operands)), type_(std::move(type)), pool_(pool) {}
  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    SF_ASSIGN_OR_RAISE(auto args, EvaluateAll(operands_, input, selection));
    const int64_t n = input.num_rows();
    if (type_.kind == TypeKind::kIntervalYearMonth) return Multiply<int32_t>(args, selection, n);
    return Multiply<int64_t>(args, selection, n);
  }

 private:
  template <typename R>
  Result<ArrayPtr> Multiply(const std::vector<ArrayPtr>& args, const Selection& selection,
                            int64_t n) {
    using U = std::make_unsigned_t<R>;
    std::function<R(int64_t)> left = Reader<R>(*args[0]->data(), operands_[0]->type());
    std::function<R(int64_t)> right = Reader<R>(*args[1]->data(), operands_[1]->type());
    return MapRows(
        args, selection, n, FixedWriter<R>(type::ToArrow(type_), pool_), pool_,
        [&](int64_t i, FixedWriter<R>& w) {
          return w.Append(static_cast<R>(static_cast<U>(left(i)) * static_cast<U>(right(i))));
        });
  }

  // Row i of an integral or interval array as R, by Java's primitive narrowing/widening.
  template <typename R>
  static std::function<R(int64_t)> Reader(const arrow::ArrayData& data, const LogicalType& t) {
    switch (t.kind) {
      case TypeKind::kTinyInt:
        return [v = data.GetValues<int8_t>(1)](int64_t i) { return R(v[i]); };
      case TypeKind::kSmallInt:
        return [v = data.GetValues<int16_t>(1)](int64_t i) { return R(v[i]); };
      case TypeKind::kInt:
      case TypeKind::kIntervalYearMonth:
        return [v = data.GetValues<int32_t>(1)](int64_t i) { return R(v[i]); };
      default:
        return [v = data.GetValues<int64_t>(1)](int64_t i) {
          return static_cast<R>(static_cast<uint64_t>(v[i]));
        };
    }
  }

  std::vector<ExprPtr> operands_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
};

Result<ExprPtr> CompileIntervalTimes(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2));
  const LogicalType& left = call.operands[0]->type();
  const LogicalType& right = call.operands[1]->type();
  const bool interval =
      left.kind == TypeKind::kIntervalYearMonth || left.kind == TypeKind::kIntervalDayTime;
  if (!interval || !right.IsIntegral() ||
      (call.result.kind != TypeKind::kIntervalYearMonth &&
       call.result.kind != TypeKind::kIntervalDayTime)) {
    return call.Refuse("only INTERVAL * integer is native");
  }
  return ExprPtr(
      std::make_unique<IntervalTimes>(std::move(call.operands), call.result, call.ctx.pool));
}

// UNIX_TIMESTAMP(text[, pattern]): DateTimeUtils.unixTimestamp (legacy_date_parse.h), in the
// session zone with java.util.TimeZone's wall-time offsets.
class UnixTimestamp final : public TemporalFunction {
 public:
  UnixTimestamp(std::vector<ExprPtr> operands, functions::LegacyDateParser parser, ZonePtr zone,
                LogicalType type, arrow::MemoryPool* pool)
      : TemporalFunction(std::move(operands), std::move(type), pool),
        parser_(std::move(parser)),
        zone_(std::move(zone)) {}

 protected:
  Result<ArrayPtr> Compute(const std::vector<ArrayPtr>& args, const Selection& selection,
                           int64_t n) override {
    StringReader text(*args[0]->data());
    return MapRows(
        args, selection, n, FixedWriter<int64_t>(arrow::int64(), pool_), pool_,
        [&](int64_t i, FixedWriter<int64_t>& w) {
          return w.Append(functions::UnixTimestampSeconds(parser_.ParseMillis(text[i], *zone_)));
        });
  }

 private:
  functions::LegacyDateParser parser_;
  ZonePtr zone_;
};

Result<ExprPtr> CompileUnixTimestamp(FunctionCall& call) {
  if (call.operands.empty()) return call.Refuse("the current time is not deterministic");
  SF_RETURN_NOT_OK(call.ExpectOperands(1, 2));
  if (!call.operands[0]->type().IsString() || call.result.kind != TypeKind::kBigInt) {
    return call.Refuse("operand or result type");
  }
  SF_ASSIGN_OR_RAISE(const std::string pattern,
                     LegacyPatternOperand(call, 1, kLegacyTimestampPattern));
  SF_RETURN_NOT_OK(CheckLegacyLocale(call));
  auto parser = functions::LegacyDateParser::Compile(pattern);
  if (!parser.ok()) return call.Refuse(parser.status().message());
  SF_ASSIGN_OR_RAISE(auto zone, SessionTimeZone(call.ctx));
  if (zone->IsFixed() && zone->OffsetMillisAt(0) % 60000 != 0) {
    return call.Refuse("a session zone offset with seconds");
  }
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(call.operands[0]));
  return ExprPtr(std::make_unique<UnixTimestamp>(std::move(operands), std::move(*parser),
                                                 std::move(zone), call.result, call.ctx.pool));
}

}  // namespace

void RegisterTemporalFunctions(FunctionRegistry& r) {
  r.Add({"INTERVAL_TIMES", "INTERVAL * integer -> INTERVAL",
         "Interval times an integer with Java's wrapping long/int multiply (TIMESTAMPADD amounts)",
         CompileIntervalTimes});
  r.Add({"EXTRACT", "EXTRACT(unit FROM DATE | TIME | TIMESTAMP | TIMESTAMP_LTZ) -> BIGINT",
         "Field of a date/time (also YEAR(), MONTH(), HOUR(), DAYOFWEEK()...); Flink's truncating "
         "arithmetic on epoch millis, the session zone for TIMESTAMP_LTZ",
         CompileExtract});
  r.Add({"FLOOR_DATETIME", "FLOOR(DATE | TIME | TIMESTAMP | TIMESTAMP_LTZ TO unit)",
         "Rounds down to a unit (DateTimeUtils.julianDateFloor / timestampFloor rules)",
         CompileFloorCeil<true>});
  r.Add({"CEIL_DATETIME", "CEIL(DATE | TIME | TIMESTAMP | TIMESTAMP_LTZ TO unit)",
         "Rounds up to a unit (DateTimeUtils.julianDateFloor / timestampCeil rules)",
         CompileFloorCeil<false>});
  r.Add({"DATE_FORMAT",
         "DATE_FORMAT(TIMESTAMP | TIMESTAMP_LTZ | STRING, literal pattern) -> STRING",
         "Formats with DateTimeFormatter.ofPattern (numeric fields, literals, and text fields "
         "with the JVM locale's texts; the session zone for TIMESTAMP_LTZ); a string is parsed "
         "as 'yyyy-MM-dd HH:mm:ss' and formatted with SimpleDateFormat's numeric fields in UTC",
         CompileDateFormat});
  r.Add({"DATETIME_PLUS", "datetime + INTERVAL (also TIMESTAMPADD)",
         "DATE/TIME/TIMESTAMP plus an interval; months clamp to the month's last day",
         CompileDatetimeArithmetic<true>});
  r.Add({"DATETIME_MINUS", "datetime - INTERVAL | datetime - datetime (TIMESTAMPDIFF)",
         "Interval subtraction, or the difference of two datetimes as an interval",
         CompileDatetimeArithmetic<false>});
  r.Add({"REINTERPRET",
         "REINTERPRET(x) between DATE/TIME/INTERVAL and integers, or a timestamp as itself",
         "The same internal value under another type (as TIMESTAMPDIFF plans it)",
         CompileReinterpret});
  r.Add({"TO_TIMESTAMP", "TO_TIMESTAMP(STRING[, literal pattern]) -> TIMESTAMP(3)",
         "Parses 'yyyy-MM-dd[ HH:mm:ss[.f]]' leniently as Flink's default formatter, or the "
         "pattern's numeric DateTimeFormatter fields; NULL when unparsable",
         CompileToTimestamp});
  r.Add({"TO_DATE", "TO_DATE(STRING[, literal pattern]) -> DATE",
         "Parses 'yyyy[-MM[-dd]]' (DateTimeUtils.parseDate; NULL when unparsable), or the "
         "pattern's SimpleDateFormat numeric fields in UTC",
         CompileToDate});
  r.Add({"FROM_UNIXTIME", "FROM_UNIXTIME(BIGINT[, literal pattern]) -> STRING",
         "Epoch seconds as 'yyyy-MM-dd HH:mm:ss' or the pattern's numeric fields in the session "
         "zone (SimpleDateFormat)",
         CompileFromUnixtime});
  r.Add({"TO_TIMESTAMP_LTZ", "TO_TIMESTAMP_LTZ(numeric[, 0 | 3]) -> TIMESTAMP_LTZ(3)",
         "Epoch seconds (0) or milliseconds (3, default) as an instant; NULL outside years "
         "0000..9999",
         CompileToTimestampLtz});
  r.Add({"UNIX_TIMESTAMP", "UNIX_TIMESTAMP(STRING[, literal pattern]) -> BIGINT",
         "Epoch seconds of a date-time text: SimpleDateFormat's lenient parsing on the "
         "Julian/Gregorian calendar in a fixed-offset session zone; Long.MIN_VALUE if unparseable",
         CompileUnixTimestamp});
}

}  // namespace streamfusion::expression
