// CAST from or to DATE, TIME, TIMESTAMP and TIMESTAMP_LTZ, with Flink 2.2's cast rules
// (org.apache.flink.table.planner.functions.casting: DateToTimestampCastRule,
// TimestampToDateCastRule, TimestampToTimeCastRule, TimeToTimestampCastRule,
// TimestampToTimestampCastRule, *ToStringCastRule, StringTo*CastRule) and the session time zone
// for TIMESTAMP_LTZ.

#include "streamfusion/expression/jvm_calls.h"
#include "streamfusion/expression/nodes.h"
#include "streamfusion/expression/rowwise.h"
#include "streamfusion/expression/temporal_arrays.h"
#include "streamfusion/functions/string_conversion.h"
#include "streamfusion/functions/temporal.h"

namespace streamfusion::expression {

namespace {

// The local date-time of TimestampData.toLocalDateTime(), as epoch millis: its epoch day is an
// int ((int) (millis / MILLIS_PER_DAY), then one less for a negative remainder), so millis
// beyond +-5.8 million years wrap there exactly as in Java (found by the fuzzer).
int64_t JavaLocalDateTimeMillis(int64_t millis) {
  constexpr int64_t kDay = 86400000;
  int64_t time = millis % kDay;
  uint32_t date = static_cast<uint32_t>(static_cast<uint64_t>(millis / kDay));
  if (time < 0) {
    --date;
    time += kDay;
  }
  return static_cast<int64_t>(static_cast<int32_t>(date)) * kDay + time;
}

using functions::TimestampValue;
using type::LogicalType;
using type::TypeKind;
using ZonePtr = std::shared_ptr<const functions::TimeZone>;

enum class TemporalCastKind {
  kDateToTimestamp,
  kDateToLtz,
  kTimeToTimestamp,
  kTimeToLtz,
  kTimestampToDate,
  kLtzToDate,
  kTimestampToTime,
  kLtzToTime,
  kTimestampToTimestamp,  // also LTZ -> LTZ: precision only
  kTimestampToLtz,
  kLtzToTimestamp,
  kDateToString,
  kTimeToString,
  kTimestampToString,
  kLtzToString,
  kStringToDate,
  kStringToTime,
  kStringToTimestamp,
  kStringToLtz,
};

class TemporalCast final : public Expression {
 public:
  TemporalCast(ExprPtr child, TemporalCastKind kind, LogicalType to, ZonePtr zone,
               bool flink_errors, arrow::MemoryPool* pool)
      : child_(std::move(child)),
        kind_(kind),
        to_(std::move(to)),
        zone_(std::move(zone)),
        flink_errors_(flink_errors),
        pool_(pool) {}
  const LogicalType& type() const override { return to_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    SF_ASSIGN_OR_RAISE(auto value, child_->Evaluate(input, selection));
    const int64_t n = input.num_rows();
    const std::vector<ArrayPtr> args{value};
    const arrow::ArrayData& in = *value->data();
    const LogicalType& from = child_->type();
    const int32_t p = to_.precision;
    switch (kind_) {
      case TemporalCastKind::kDateToTimestamp: {
        FixedReader<int32_t> d(in);
        return MapRows(args, selection, n, TimestampWriter(to_, pool_), pool_,
                       [&](int64_t i, TimestampWriter& w) {
                         return w.Append({d[i] * functions::kMillisPerDay, 0});
                       });
      }
      case TemporalCastKind::kDateToLtz: {
        FixedReader<int32_t> d(in);
        return MapRows(
            args, selection, n, TimestampWriter(to_, pool_), pool_,
            [&](int64_t i, TimestampWriter& w) {
              return w.Append({zone_->LocalToEpochMillis(d[i] * functions::kMillisPerDay), 0});
            });
      }
      case TemporalCastKind::kTimeToTimestamp:
      case TemporalCastKind::kTimeToLtz: {
        FixedReader<int32_t> t(in);
        const bool ltz = kind_ == TemporalCastKind::kTimeToLtz;
        return MapRows(args, selection, n, TimestampWriter(to_, pool_), pool_,
                       [&](int64_t i, TimestampWriter& w) {
                         const int64_t local = t[i];
                         return w.Append({ltz ? zone_->LocalToEpochMillis(local) : local, 0});
                       });
      }
      case TemporalCastKind::kTimestampToDate: {
        TimestampReader ts(in);
        return MapRows(
            args, selection, n, FixedWriter<int32_t>(arrow::date32(), pool_), pool_,
            [&](int64_t i, FixedWriter<int32_t>& w) {
              // (int) (getMillisecond() / MILLIS_PER_DAY): truncating.
              return w.Append(static_cast<int32_t>(ts.millis(i) / functions::kMillisPerDay));
            });
      }
      case TemporalCastKind::kLtzToDate: {
        TimestampReader ts(in);
        return MapRows(args, selection, n, FixedWriter<int32_t>(arrow::date32(), pool_), pool_,
                       [&](int64_t i, FixedWriter<int32_t>& w) {
                         const int64_t local = Local(ts.millis(i));
                         return w.Append(static_cast<int32_t>(
                             functions::FloorDiv(local, functions::kMillisPerDay)));
                       });
      }
      case TemporalCastKind::kTimestampToTime:
      case TemporalCastKind::kLtzToTime: {
        TimestampReader ts(in);
        const bool ltz = kind_ == TemporalCastKind::kLtzToTime;
        return MapRows(args, selection, n, FixedWriter<int32_t>(type::ToArrow(to_), pool_), pool_,
                       [&](int64_t i, FixedWriter<int32_t>& w) {
                         const int64_t m = ts.millis(i);
                         // TIMESTAMP: (int) (millis % MILLIS_PER_DAY), negative before 1970;
                         // LTZ: the local time of day.
                         const int32_t t = ltz ? static_cast<int32_t>(functions::FloorMod(
                                                     Local(m), functions::kMillisPerDay))
                                               : static_cast<int32_t>(m % functions::kMillisPerDay);
                         return w.Append(functions::TruncateTime(t, p));
                       });
      }
      case TemporalCastKind::kTimestampToTimestamp:
      case TemporalCastKind::kTimestampToLtz:
      case TemporalCastKind::kLtzToTimestamp: {
        TimestampReader ts(in);
        const bool truncate = from.precision > p;
        return MapRows(args, selection, n, TimestampWriter(to_, pool_), pool_,
                       [&](int64_t i, TimestampWriter& w) {
                         TimestampValue v = ts[i];
                         if (kind_ == TemporalCastKind::kTimestampToLtz) {
                           v.millis = zone_->LocalToEpochMillis(JavaLocalDateTimeMillis(v.millis));
                         } else if (kind_ == TemporalCastKind::kLtzToTimestamp) {
                           v.millis = Local(v.millis);
                         }
                         return w.Append(truncate ? functions::TruncateTimestamp(v, p) : v);
                       });
      }
      case TemporalCastKind::kDateToString:
      case TemporalCastKind::kTimeToString:
      case TemporalCastKind::kTimestampToString:
      case TemporalCastKind::kLtzToString: return ToString(args, in, selection, n);
      case TemporalCastKind::kStringToDate: {
        StringReader s(in);
        return MapRows(args, selection, n, FixedWriter<int32_t>(arrow::date32(), pool_), pool_,
                       [&](int64_t i, FixedWriter<int32_t>& w) -> Status {
                         auto date = functions::ParseDate(s[i]);
                         if (!date.ok() || !*date) {
                           // BinaryStringDataUtil.toDate's DateTimeException (or
                           // NumberFormatException), as Flink throws it.
                           return ParseError(
                               FlinkStringParse::kDate, s[i], 0,
                               date.ok() ? UserError("java.time.DateTimeException: For input "
                                                     "string: '",
                                                     s[i], "'.")
                                         : date.status());
                         }
                         return w.Append(**date);
                       });
      }
      case TemporalCastKind::kStringToTime: {
        StringReader s(in);
        return MapRows(args, selection, n, FixedWriter<int32_t>(type::ToArrow(to_), pool_), pool_,
                       [&](int64_t i, FixedWriter<int32_t>& w) -> Status {
                         auto time = functions::ParseTime(s[i]);
                         if (!time.ok() || !*time) {
                           return ParseError(
                               FlinkStringParse::kTime, s[i], p,
                               time.ok() ? UserError("Invalid time format: '", s[i],
                                                     "'. Expected format: HH:mm:ss[.fff] where "
                                                     "HH is 00-23, mm is 00-59, ss is 00-59")
                                         : time.status());
                         }
                         return w.Append(functions::TruncateTime(**time, p));
                       });
      }
      case TemporalCastKind::kStringToTimestamp:
      case TemporalCastKind::kStringToLtz: {
        StringReader s(in);
        const bool ltz = kind_ == TemporalCastKind::kStringToLtz;
        return MapRows(args, selection, n, TimestampWriter(to_, pool_), pool_,
                       [&](int64_t i, TimestampWriter& w) -> Status {
                         auto ts = functions::ParseTimestamp(s[i], p);
                         if (!ts) {
                           // DEFAULT_TIMESTAMP_FORMATTER's DateTimeParseException, with the
                           // index where its parse stopped, as Flink throws it.
                           return ParseError(FlinkStringParse::kTimestamp, s[i], p,
                                             UserError("Text '", s[i], "' could not be parsed"));
                         }
                         if (ltz) ts->millis = zone_->LocalToEpochMillis(ts->millis);
                         return w.Append(*ts);
                       });
      }
    }
    return InternalError("temporal cast kind");
  }

 private:
  // A refused text's error: Flink's own exception for a CAST, the native message under TRY_CAST.
  Status ParseError(FlinkStringParse kind, std::string_view text, int32_t precision,
                    Status native_error) const {
    if (!flink_errors_) return native_error;
    return FlinkParseError(kind, text, precision, std::move(native_error));
  }

  // Local millis of an instant in the session zone (LocalDateTime.ofInstant).
  int64_t Local(int64_t millis) const { return millis + zone_->OffsetMillisAt(millis); }

  Result<ArrayPtr> ToString(const std::vector<ArrayPtr>& args, const arrow::ArrayData& in,
                            const Selection& selection, int64_t n) {
    const LogicalType& from = child_->type();
    const bool pad = to_.kind == TypeKind::kChar;
    std::string text;
    std::string fitted;
    auto emit = [&](Utf8Writer& w) {
      functions::FitToLength(text, to_.length, pad, &fitted);
      return w.Append(fitted);
    };
    Utf8Writer writer(pool_);
    switch (kind_) {
      case TemporalCastKind::kDateToString: {
        FixedReader<int32_t> d(in);
        return MapRows(args, selection, n, std::move(writer), pool_, [&](int64_t i, Utf8Writer& w) {
          text.clear();
          functions::FormatDate(d[i], &text);
          return emit(w);
        });
      }
      case TemporalCastKind::kTimeToString: {
        FixedReader<int32_t> t(in);
        return MapRows(args, selection, n, std::move(writer), pool_, [&](int64_t i, Utf8Writer& w) {
          text.clear();
          functions::FormatTime(t[i], from.precision, &text);
          return emit(w);
        });
      }
      default: {
        TimestampReader ts(in);
        const bool ltz = kind_ == TemporalCastKind::kLtzToString;
        return MapRows(args, selection, n, std::move(writer), pool_, [&](int64_t i, Utf8Writer& w) {
          TimestampValue v = ts[i];
          if (ltz) v.millis = Local(v.millis);
          text.clear();
          functions::FormatTimestamp(v, from.precision, &text);
          return emit(w);
        });
      }
    }
  }

  ExprPtr child_;
  TemporalCastKind kind_;
  LogicalType to_;
  ZonePtr zone_;
  bool flink_errors_;
  arrow::MemoryPool* pool_;
};

}  // namespace

Result<ExprPtr> MakeTemporalCast(ExprPtr child, const type::LogicalType& to,
                                 const CompileContext& ctx, bool flink_errors) {
  const LogicalType& from = child->type();
  auto refuse = [&](std::string_view why) -> Status {
    return Unsupported("CAST(", from.ToString(), " AS ", to.ToString(),
                       ") is not supported natively", why.empty() ? "" : ": ", why);
  };
  const TypeKind f = from.kind;
  const TypeKind t = to.kind;
  const bool to_string = to.IsString();
  std::optional<TemporalCastKind> kind;
  bool zoned = false;
  if (f == TypeKind::kDate) {
    if (t == TypeKind::kTimestamp) kind = TemporalCastKind::kDateToTimestamp;
    if (t == TypeKind::kTimestampLtz) kind = TemporalCastKind::kDateToLtz, zoned = true;
    if (to_string) kind = TemporalCastKind::kDateToString;
  } else if (f == TypeKind::kTime) {
    if (t == TypeKind::kTimestamp) kind = TemporalCastKind::kTimeToTimestamp;
    if (t == TypeKind::kTimestampLtz) kind = TemporalCastKind::kTimeToLtz, zoned = true;
    if (to_string) kind = TemporalCastKind::kTimeToString;
    if (t == TypeKind::kTime) {
      // TIME(p) -> TIME(q): the same millis (Flink keeps TIME at millisecond resolution).
      return MakeCast(std::move(child), to, ctx.pool);
    }
  } else if (f == TypeKind::kTimestamp) {
    if (t == TypeKind::kDate) kind = TemporalCastKind::kTimestampToDate;
    if (t == TypeKind::kTime) kind = TemporalCastKind::kTimestampToTime;
    if (t == TypeKind::kTimestamp) {
      // A rowtime/proctime attribute keeps precision 3 in TimestampToTimestampCastRule; the plan
      // does not say whether the operand is one, so narrowing a TIMESTAMP(p <= 3) is refused.
      if (to.precision < from.precision && from.precision <= 3) {
        return refuse("narrowing a TIMESTAMP(p <= 3) that may be a time attribute");
      }
      kind = TemporalCastKind::kTimestampToTimestamp;
    }
    if (t == TypeKind::kTimestampLtz) kind = TemporalCastKind::kTimestampToLtz, zoned = true;
    if (to_string) kind = TemporalCastKind::kTimestampToString;
  } else if (f == TypeKind::kTimestampLtz) {
    zoned = true;
    if (t == TypeKind::kDate) kind = TemporalCastKind::kLtzToDate;
    if (t == TypeKind::kTime) kind = TemporalCastKind::kLtzToTime;
    if (t == TypeKind::kTimestamp) kind = TemporalCastKind::kLtzToTimestamp;
    if (t == TypeKind::kTimestampLtz) kind = TemporalCastKind::kTimestampToTimestamp, zoned = false;
    if (to_string) kind = TemporalCastKind::kLtzToString;
  } else if (from.IsString()) {
    if (t == TypeKind::kDate) kind = TemporalCastKind::kStringToDate;
    if (t == TypeKind::kTime) kind = TemporalCastKind::kStringToTime;
    if (t == TypeKind::kTimestamp) kind = TemporalCastKind::kStringToTimestamp;
    if (t == TypeKind::kTimestampLtz) kind = TemporalCastKind::kStringToLtz, zoned = true;
  }
  if (!kind) return refuse("");
  ZonePtr zone;
  if (zoned) {
    SF_ASSIGN_OR_RAISE(zone, SessionTimeZone(ctx));
  }
  return ExprPtr(std::make_unique<TemporalCast>(std::move(child), *kind, to, std::move(zone),
                                                flink_errors, ctx.pool));
}

}  // namespace streamfusion::expression
