// Every JNI entry point of StreamFusion. The Java side is io.streamfusion.runtime.jni.NativeLib.
//
// Rules for this file:
//   * each entry point runs its body through Guard(), which turns an error Status or any C++
//     exception into a Java io.streamfusion.runtime.jni.NativeException carrying the message
//     and the kind (user error, internal error, out of memory); nothing escapes into the JVM;
//   * native objects cross as jlong handles, each owned by one AutoCloseable Java object;
//   * plans cross as serialized plan.proto messages; rows cross as BinaryRowData images (the
//     transposes to and from Arrow run here, in C++);
//   * production entry points only: what tests need beyond them is a tool (native/tools).

#include <jni.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "google/protobuf/io/coded_stream.h"
#include "streamfusion/batch/binary_row.h"
#include "streamfusion/common/status.h"
#include "streamfusion/expression/function_registry.h"
#include "streamfusion/expression/udf_call.h"
#include "streamfusion/jni/jni_util.h"
#include "streamfusion/jni/jvm_upcalls.h"
#include "streamfusion/memory/accounting_pool.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/plan/pipeline.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::jni {
namespace {

constexpr const char* kNativeExceptionClass = "io/streamfusion/runtime/jni/NativeException";
constexpr jint kKindUser = 0;
constexpr jint kKindInternal = 1;
constexpr jint kKindOutOfMemory = 2;

jclass g_native_exception = nullptr;
jmethodID g_native_exception_of = nullptr;  // static RuntimeException of(int, String)

// The native side of one NativePipeline Java object.
struct PipelineHandle {
  std::unique_ptr<JvmUdfCaller> udfs;  // null when the plan has no UDF
  std::unique_ptr<plan::Pipeline> pipeline;
  batch::BinaryRowBuffer output;
};

// A call's result, packed as plan.proto's CallResultBit says. The island's state port has a
// message for the JVM (reads of a blocked operator, or the writes of a finished batch), which the
// JVM takes with exchangeState:
constexpr jlong kStatePending = static_cast<jlong>(uint64_t{1} << plan::CALL_RESULT_STATE_PENDING);
// Watermarks leave the island with the output (takeWatermarks).
constexpr jlong kWatermarksPending = jlong{1} << plan::CALL_RESULT_WATERMARKS;

jlong PackResult(int64_t rows, int64_t bytes, bool watermarks) {
  return (static_cast<jlong>(bytes) << plan::CALL_RESULT_BYTES) |
         (static_cast<jlong>(rows) << plan::CALL_RESULT_ROWS) |
         (watermarks ? kWatermarksPending : 0);
}

// What processRows and flushPipeline return once `output` is the island's (null: blocked): the
// output's rows and bytes and whether watermarks leave with it, or kStatePending.
Result<jlong> IslandResult(PipelineHandle* h, const std::shared_ptr<arrow::RecordBatch>& output) {
  if (output != nullptr) {
    SF_RETURN_NOT_OK(batch::EncodeBinaryRows(h->pipeline->output_type(), *output, &h->output));
  }
  state::StatePort* port = h->pipeline->state_port();
  if (h->pipeline->blocked() || (port != nullptr && port->has_message())) return kStatePending;
  return PackResult(h->output.num_rows(), static_cast<int64_t>(h->output.bytes.size()),
                    h->pipeline->has_watermarks());
}

void ThrowNative(JNIEnv* env, jint kind, const std::string& message) {
  if (env->ExceptionCheck()) return;  // keep the first (Java) exception
  if (g_native_exception == nullptr) {
    env->ThrowNew(env->FindClass("java/lang/IllegalStateException"), message.c_str());
    return;
  }
  jstring text = env->NewStringUTF(message.c_str());
  if (text == nullptr) return;  // OutOfMemoryError pending
  // NativeException.of: a user error that names Flink's exception class becomes that exception.
  auto exception = static_cast<jthrowable>(
      env->CallStaticObjectMethod(g_native_exception, g_native_exception_of, kind, text));
  if (exception != nullptr) env->Throw(exception);
}

void ThrowStatus(JNIEnv* env, const Status& status) {
  jint kind = kKindInternal;
  if (status.IsInvalid()) kind = kKindUser;
  if (status.IsOutOfMemory()) kind = kKindOutOfMemory;
  ThrowNative(env, kind, status.message());
}

// Runs `body` (returning Result<T>) and converts every failure into a Java exception; returns
// `fallback` to the JVM in that case.
template <typename T, typename Body>
T Guard(JNIEnv* env, T fallback, Body&& body) {
  try {
    Result<T> result = body();
    if (result.ok()) return *result;
    ThrowStatus(env, result.status());
  } catch (const std::bad_alloc&) {
    ThrowNative(env, kKindOutOfMemory, "Native allocation failed (std::bad_alloc)");
  } catch (const std::exception& e) {
    ThrowNative(env, kKindInternal, std::string("Native exception: ") + e.what());
  } catch (...) {
    ThrowNative(env, kKindInternal, "Unknown native exception");
  }
  return fallback;
}

PipelineHandle* FromHandle(jlong handle) {
  return reinterpret_cast<PipelineHandle*>(handle);
}

Result<PipelineHandle*> CheckedHandle(jlong handle) {
  if (handle == 0) return InternalError("Native pipeline used after close");
  return FromHandle(handle);
}

// Runtime.version().feature() of this JVM, or 0 when it cannot be read. Flink's generated code
// runs here, so results that depend on the JDK (Double.toString digits) follow this JVM, not the
// one that planned the job.
int RunningJavaFeatureVersion(JNIEnv* env) {
  jclass runtime = env->FindClass("java/lang/Runtime");
  jmethodID version = runtime == nullptr ? nullptr
                                         : env->GetStaticMethodID(runtime, "version",
                                                                  "()Ljava/lang/Runtime$Version;");
  jobject value = version == nullptr ? nullptr : env->CallStaticObjectMethod(runtime, version);
  jclass version_class = value == nullptr ? nullptr : env->GetObjectClass(value);
  jmethodID feature =
      version_class == nullptr ? nullptr : env->GetMethodID(version_class, "feature", "()I");
  const int result = feature == nullptr ? 0 : env->CallIntMethod(value, feature);
  if (env->ExceptionCheck()) {
    env->ExceptionClear();
    return 0;
  }
  return result;
}

// Protobuf's recursion limit for plans, as the JVM side's Plans.RECURSION_LIMIT: the planner
// bounds expression and type nesting (Plans.MAX_EXPRESSION_DEPTH, MAX_TYPE_DEPTH) far below it.
constexpr int kPlanRecursionLimit = 1000;

// Parses a serialized protobuf message of type M from a Java byte[].
template <typename M>
Result<M> ParseMessage(JNIEnv* env, jbyteArray bytes, const char* what) {
  const jsize length = env->GetArrayLength(bytes);
  std::string data(static_cast<size_t>(length), '\0');
  env->GetByteArrayRegion(bytes, 0, length, reinterpret_cast<jbyte*>(data.data()));
  M message;
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(data.data()),
                                               static_cast<int>(data.size()));
  input.SetRecursionLimit(kPlanRecursionLimit);
  if (!message.ParseFromCodedStream(&input) || !input.ConsumedEntireMessage()) {
    return InternalError("Cannot parse the ", what, " (", data.size(),
                         " bytes; nested deeper than ", kPlanRecursionLimit,
                         " messages, or corrupt)");
  }
  return message;
}

// Runs `fn(data, offsets)` on `num_rows` BinaryRowData images held in Java arrays
// (rows[offsets[i], offsets[i+1])), pinned for the duration of the call after their bounds are
// checked. `fn` must not call back into the JVM.
template <typename Fn>
Status WithJavaRows(JNIEnv* env, jbyteArray rows, jintArray offsets, jint num_rows,
                    const char* caller, Fn&& fn) {
  if (num_rows < 0 || env->GetArrayLength(offsets) < num_rows + 1) {
    return InternalError(caller, ": offsets array too short for ", num_rows, " rows");
  }
  const jsize capacity = env->GetArrayLength(rows);
  CriticalArray row_data(env, rows);
  CriticalArray offset_data(env, offsets);
  const auto* offs = static_cast<const int32_t*>(offset_data.data());
  if (num_rows > 0 && (offs[0] < 0 || offs[num_rows] > capacity)) {
    return InternalError(caller, ": row offsets exceed the byte array: ", offs[num_rows], " > ",
                         capacity);
  }
  for (jint i = 0; i < num_rows; ++i) {
    if (offs[i + 1] < offs[i]) return InternalError(caller, ": row offsets decrease at ", i);
  }
  return fn(static_cast<const uint8_t*>(row_data.data()), offs);
}

// Decodes rows held in Java arrays (see WithJavaRows) into an Arrow batch of `row_type`.
Result<std::shared_ptr<arrow::RecordBatch>> DecodeJavaRows(JNIEnv* env,
                                                           const type::RowType& row_type,
                                                           jbyteArray rows, jintArray offsets,
                                                           jint num_rows, arrow::MemoryPool* pool,
                                                           const char* caller) {
  std::shared_ptr<arrow::RecordBatch> decoded;
  SF_RETURN_NOT_OK(WithJavaRows(
      env, rows, offsets, num_rows, caller,
      [&](const uint8_t* data, const int32_t* offs) -> Status {
        SF_ASSIGN_OR_RAISE(decoded, batch::DecodeBinaryRows(row_type, data, offs, num_rows, pool));
        return Status::OK();
      }));
  return decoded;
}

// Copies `values` (1-, 4- or 8-byte integers) into the start of a Java byte[], int[] or long[]
// that must be large enough.
template <typename JArray, typename T>
Status CopyToJava(JNIEnv* env, JArray array, const std::vector<T>& values, const char* what) {
  const auto n = static_cast<jsize>(values.size());
  if (env->GetArrayLength(array) < n) {
    return InternalError("Java array too small for ", values.size(), " ", what);
  }
  if constexpr (sizeof(T) == 1) {
    env->SetByteArrayRegion(reinterpret_cast<jbyteArray>(array), 0, n,
                            reinterpret_cast<const jbyte*>(values.data()));
  } else if constexpr (sizeof(T) == sizeof(jint)) {
    env->SetIntArrayRegion(reinterpret_cast<jintArray>(array), 0, n,
                           reinterpret_cast<const jint*>(values.data()));
  } else {
    static_assert(sizeof(T) == sizeof(jlong));
    env->SetLongArrayRegion(reinterpret_cast<jlongArray>(array), 0, n,
                            reinterpret_cast<const jlong*>(values.data()));
  }
  return Status::OK();
}

// A Java long[] prefix of `count` entries.
Result<std::vector<int64_t>> LongsFromJava(JNIEnv* env, jlongArray array, jint count,
                                           const char* what) {
  if (count < 0 || env->GetArrayLength(array) < count) {
    return InternalError(what, " shorter than ", count);
  }
  std::vector<int64_t> values(static_cast<size_t>(count));
  env->GetLongArrayRegion(array, 0, count, reinterpret_cast<jlong*>(values.data()));
  return values;
}

// Compiles `plan`, an island of one or more operators.
Status ValidateAnyPlan(const plan::Plan& plan) {
  return plan::Pipeline::Make(plan, /*memory_budget_bytes=*/0).status();
}

}  // namespace
}  // namespace streamfusion::jni

using namespace streamfusion;       // NOLINT: entry points only
using namespace streamfusion::jni;  // NOLINT

extern "C" {

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void*) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
  jclass local = env->FindClass(kNativeExceptionClass);
  if (local == nullptr) return JNI_ERR;
  g_native_exception = static_cast<jclass>(env->NewGlobalRef(local));
  env->DeleteLocalRef(local);
  g_native_exception_of = env->GetStaticMethodID(
      g_native_exception, "of", "(ILjava/lang/String;)Ljava/lang/RuntimeException;");
  if (g_native_exception_of == nullptr) return JNI_ERR;
  if (InstallJvmUpcalls(vm, env) != JNI_OK) return JNI_ERR;
  return JNI_VERSION_1_8;
}

JNIEXPORT void JNICALL JNI_OnUnload(JavaVM* vm, void*) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) == JNI_OK && g_native_exception) {
    env->DeleteGlobalRef(g_native_exception);
  }
  g_native_exception = nullptr;
  RemoveJvmUpcalls(env);
}

// The native function registry, one function per line: name TAB signature TAB doc.
JNIEXPORT jstring JNICALL Java_io_streamfusion_runtime_jni_NativeLib_listFunctions(JNIEnv* env,
                                                                                   jclass) {
  std::string out;
  for (const auto& f : expression::FunctionRegistry::Instance().functions()) {
    out += f.name + "\t" + f.signature + "\t" + f.doc + "\n";
  }
  return env->NewStringUTF(out.c_str());
}

JNIEXPORT jlong JNICALL Java_io_streamfusion_runtime_jni_NativeLib_globalMemoryBytes(JNIEnv*,
                                                                                     jclass) {
  return memory::AccountingPool::GlobalBytesInUse();
}

JNIEXPORT jlong JNICALL Java_io_streamfusion_runtime_jni_NativeLib_jniCrossings(JNIEnv*, jclass) {
  return static_cast<jlong>(g_jni_crossings.load(std::memory_order_relaxed));
}

JNIEXPORT jlong JNICALL Java_io_streamfusion_runtime_jni_NativeLib_createPipeline(
    JNIEnv* env, jclass, jbyteArray plan_bytes, jlong memory_budget_bytes, jobject udf_bridge) {
  CountCrossing();
  return Guard<jlong>(env, 0, [&]() -> Result<jlong> {
    SF_ASSIGN_OR_RAISE(auto plan, ParseMessage<plan::Plan>(env, plan_bytes, "native plan"));
    plan.mutable_session()->set_java_feature_version(RunningJavaFeatureVersion(env));
    auto handle = std::make_unique<PipelineHandle>();
    if (plan.udfs_size() > 0) {
      if (udf_bridge == nullptr) return InternalError("The plan calls UDFs but has no UDF bridge");
      SF_ASSIGN_OR_RAISE(handle->udfs, JvmUdfCaller::Make(env, udf_bridge));
    }
    auto made = plan::Pipeline::Make(plan, memory_budget_bytes, handle->udfs.get());
    if (!made.ok() && handle->udfs) handle->udfs->Release(env);
    SF_ASSIGN_OR_RAISE(handle->pipeline, std::move(made));
    return reinterpret_cast<jlong>(handle.release());
  });
}

// Compiles a plan and throws it away: null when the engine supports it, else the reason.
JNIEXPORT jstring JNICALL Java_io_streamfusion_runtime_jni_NativeLib_validatePlan(
    JNIEnv* env, jclass, jbyteArray plan_bytes) {
  return Guard<jstring>(env, nullptr, [&]() -> Result<jstring> {
    // A plan the engine cannot read is refused like any other: the operator stays on Flink.
    auto parsed = ParseMessage<plan::Plan>(env, plan_bytes, "native plan");
    if (!parsed.ok()) return env->NewStringUTF(parsed.status().message().c_str());
    const plan::Plan& plan = *parsed;
    const Status valid = ValidateAnyPlan(plan);
    if (valid.ok()) return static_cast<jstring>(nullptr);
    return env->NewStringUTF(valid.message().c_str());
  });
}

// Runs `num_rows` BinaryRowData images through the pipeline, with a time per row when `times` is
// not null (operators::Batch::times). Returns the packed result (IslandResult); the output stays
// in the handle until copyOutput.
JNIEXPORT jlong JNICALL Java_io_streamfusion_runtime_jni_NativeLib_processRows(
    JNIEnv* env, jclass, jlong handle, jbyteArray rows, jintArray offsets, jint num_rows,
    jlongArray times) {
  CountCrossing();
  return Guard<jlong>(env, -1, [&]() -> Result<jlong> {
    SF_ASSIGN_OR_RAISE(PipelineHandle * h, CheckedHandle(handle));
    SF_ASSIGN_OR_RAISE(auto input, DecodeJavaRows(env, h->pipeline->input_type(), rows, offsets,
                                                  num_rows, h->pipeline->pool(), "processRows"));
    std::shared_ptr<const std::vector<int64_t>> row_times;
    if (times != nullptr) {
      SF_ASSIGN_OR_RAISE(auto values, LongsFromJava(env, times, num_rows, "processRows times"));
      row_times = std::make_shared<const std::vector<int64_t>>(std::move(values));
    }
    JvmUdfCaller::EnvScope udf_env(h->udfs.get(), env);
    SF_ASSIGN_OR_RAISE(auto output, h->pipeline->Process(input, std::move(row_times)));
    input.reset();
    return IslandResult(h, output);
  });
}

// The island's state message (state/state_port.h), after `answers` (the JVM's answers to the
// reads of the last message; null for the first message of a call) let the blocked operator go
// on. Returns int32 status (1: reads wait for answers, 0: done), then when done the island's
// output as int32 rows and int32 bytes (copyOutput fetches it), then the port's message.
JNIEXPORT jbyteArray JNICALL Java_io_streamfusion_runtime_jni_NativeLib_exchangeState(
    JNIEnv* env, jclass, jlong handle, jbyteArray answers) {
  CountCrossing();
  return Guard<jbyteArray>(env, nullptr, [&]() -> Result<jbyteArray> {
    SF_ASSIGN_OR_RAISE(PipelineHandle * h, CheckedHandle(handle));
    state::StatePort* port = h->pipeline->state_port();
    if (port == nullptr) return InternalError("exchangeState on an island without keyed state");
    if (answers != nullptr) {
      if (!h->pipeline->blocked()) return InternalError("exchangeState: answers for no reads");
      std::vector<uint8_t> bytes(static_cast<size_t>(env->GetArrayLength(answers)));
      env->GetByteArrayRegion(answers, 0, static_cast<jsize>(bytes.size()),
                              reinterpret_cast<jbyte*>(bytes.data()));
      SF_RETURN_NOT_OK(port->Answer(bytes.data(), static_cast<int64_t>(bytes.size())));
      JvmUdfCaller::EnvScope udf_env(h->udfs.get(), env);
      SF_ASSIGN_OR_RAISE(auto output, h->pipeline->Resume());
      if (output != nullptr) {
        SF_RETURN_NOT_OK(batch::EncodeBinaryRows(h->pipeline->output_type(), *output, &h->output));
      }
    }
    std::vector<uint8_t> message;
    const bool blocked = h->pipeline->blocked();
    state::AppendInt32(blocked ? 1 : 0, &message);
    if (!blocked) {
      state::AppendInt32(h->output.num_rows(), &message);
      state::AppendInt32(static_cast<int32_t>(h->output.bytes.size()), &message);
    }
    port->TakeMessage(&message);
    jbyteArray result = env->NewByteArray(static_cast<jsize>(message.size()));
    if (result == nullptr) return InternalError("exchangeState: no memory for the message");
    env->SetByteArrayRegion(result, 0, static_cast<jsize>(message.size()),
                            reinterpret_cast<const jbyte*>(message.data()));
    return result;
  });
}

// Flushes the island (operators::Operator::Flush, in order): what it forces out becomes the
// output, as processRows's does, with its packed result.
JNIEXPORT jlong JNICALL Java_io_streamfusion_runtime_jni_NativeLib_flushPipeline(JNIEnv* env,
                                                                                 jclass,
                                                                                 jlong handle) {
  CountCrossing();
  return Guard<jlong>(env, -1, [&]() -> Result<jlong> {
    SF_ASSIGN_OR_RAISE(PipelineHandle * h, CheckedHandle(handle));
    JvmUdfCaller::EnvScope udf_env(h->udfs.get(), env);
    SF_ASSIGN_OR_RAISE(auto output, h->pipeline->Flush());
    return IslandResult(h, output);
  });
}

// Event time advances to `watermark` in the island (plan::Pipeline::AdvanceEventTime): what its
// operators fire becomes the output, as processRows's does, with its packed result.
JNIEXPORT jlong JNICALL Java_io_streamfusion_runtime_jni_NativeLib_advanceEventTime(
    JNIEnv* env, jclass, jlong handle, jlong watermark) {
  CountCrossing();
  return Guard<jlong>(env, -1, [&]() -> Result<jlong> {
    SF_ASSIGN_OR_RAISE(PipelineHandle * h, CheckedHandle(handle));
    JvmUdfCaller::EnvScope udf_env(h->udfs.get(), env);
    SF_ASSIGN_OR_RAISE(auto output, h->pipeline->AdvanceEventTime(watermark));
    return IslandResult(h, output);
  });
}

// A processing-time timer fired at `now` in the island (plan::Pipeline::AdvanceProcessingTime):
// what its operators fire becomes the output, as processRows's does, with its packed result.
JNIEXPORT jlong JNICALL Java_io_streamfusion_runtime_jni_NativeLib_advanceProcessingTime(
    JNIEnv* env, jclass, jlong handle, jlong now) {
  CountCrossing();
  return Guard<jlong>(env, -1, [&]() -> Result<jlong> {
    SF_ASSIGN_OR_RAISE(PipelineHandle * h, CheckedHandle(handle));
    JvmUdfCaller::EnvScope udf_env(h->udfs.get(), env);
    SF_ASSIGN_OR_RAISE(auto output, h->pipeline->AdvanceProcessingTime(now));
    return IslandResult(h, output);
  });
}

// The upstream watermark status (idle or active) of the island's watermark assigner.
JNIEXPORT void JNICALL Java_io_streamfusion_runtime_jni_NativeLib_watermarkStatus(JNIEnv* env,
                                                                                  jclass,
                                                                                  jlong handle,
                                                                                  jboolean idle) {
  CountCrossing();
  Guard<bool>(env, false, [&]() -> Result<bool> {
    SF_ASSIGN_OR_RAISE(PipelineHandle * h, CheckedHandle(handle));
    SF_RETURN_NOT_OK(h->pipeline->SetWatermarkIdle(idle == JNI_TRUE));
    return true;
  });
}

// The watermarks that leave the island with the output of the last call, as pairs (output rows
// before it, watermark); null when there are none.
JNIEXPORT jlongArray JNICALL
Java_io_streamfusion_runtime_jni_NativeLib_takeWatermarks(JNIEnv* env, jclass, jlong handle) {
  CountCrossing();
  return Guard<jlongArray>(env, nullptr, [&]() -> Result<jlongArray> {
    SF_ASSIGN_OR_RAISE(PipelineHandle * h, CheckedHandle(handle));
    std::vector<operators::WatermarkMark> marks = h->pipeline->TakeWatermarks();
    if (marks.empty()) return static_cast<jlongArray>(nullptr);
    std::vector<jlong> pairs;
    pairs.reserve(2 * marks.size());
    for (const auto& mark : marks) {
      pairs.push_back(mark.rows);
      pairs.push_back(mark.watermark);
    }
    jlongArray result = env->NewLongArray(static_cast<jsize>(pairs.size()));
    if (result == nullptr) return InternalError("takeWatermarks: no memory");
    env->SetLongArrayRegion(result, 0, static_cast<jsize>(pairs.size()), pairs.data());
    return result;
  });
}

// The state the island's operators keep themselves, for a checkpoint: int32 sections, then per
// section int32 key group, int32 length and its bytes (ascending key groups; little-endian).
JNIEXPORT jbyteArray JNICALL
Java_io_streamfusion_runtime_jni_NativeLib_snapshotPipeline(JNIEnv* env, jclass, jlong handle) {
  CountCrossing();
  return Guard<jbyteArray>(env, nullptr, [&]() -> Result<jbyteArray> {
    SF_ASSIGN_OR_RAISE(PipelineHandle * h, CheckedHandle(handle));
    operators::KeyGroupSections sections;
    SF_RETURN_NOT_OK(h->pipeline->Snapshot(&sections));
    std::vector<uint8_t> out;
    const size_t n = sections.key_groups.size();
    out.reserve(sections.bytes.size() + 4 + 8 * n);
    state::AppendInt32(static_cast<int32_t>(n), &out);
    for (size_t i = 0; i < n; ++i) {
      const int32_t from = sections.offsets[i];
      const int32_t to = sections.offsets[i + 1];
      state::AppendInt32(sections.key_groups[i], &out);
      state::AppendInt32(to - from, &out);
      out.insert(out.end(), sections.bytes.begin() + from, sections.bytes.begin() + to);
    }
    if (out.size() > static_cast<size_t>(INT32_MAX)) {
      return UserError("Native state of one subtask exceeds 2 GiB in a snapshot");
    }
    jbyteArray result = env->NewByteArray(static_cast<jsize>(out.size()));
    if (result == nullptr) return InternalError("snapshotPipeline: no memory for the snapshot");
    env->SetByteArrayRegion(result, 0, static_cast<jsize>(out.size()),
                            reinterpret_cast<const jbyte*>(out.data()));
    return result;
  });
}

// Adds one key group's section of a snapshotPipeline to the island's state, before any input.
JNIEXPORT void JNICALL Java_io_streamfusion_runtime_jni_NativeLib_restorePipeline(
    JNIEnv* env, jclass, jlong handle, jint key_group, jbyteArray section) {
  CountCrossing();
  Guard<bool>(env, false, [&]() -> Result<bool> {
    SF_ASSIGN_OR_RAISE(PipelineHandle * h, CheckedHandle(handle));
    std::vector<uint8_t> bytes(static_cast<size_t>(env->GetArrayLength(section)));
    env->GetByteArrayRegion(section, 0, static_cast<jsize>(bytes.size()),
                            reinterpret_cast<jbyte*>(bytes.data()));
    SF_RETURN_NOT_OK(
        h->pipeline->Restore(key_group, bytes.data(), static_cast<int64_t>(bytes.size())));
    return true;
  });
}

// The island's port store as state port messages of writes (or with `clears`, of clears), each
// of about `message_bytes` at most, handed to `sink` (a java.util.function.Consumer<byte[]>) in
// turn (state/port_store.h, PortStore::Export).
JNIEXPORT void JNICALL Java_io_streamfusion_runtime_jni_NativeLib_exportStore(
    JNIEnv* env, jclass, jlong handle, jboolean clears, jint message_bytes, jobject sink) {
  CountCrossing();
  Guard<bool>(env, false, [&]() -> Result<bool> {
    SF_ASSIGN_OR_RAISE(PipelineHandle * h, CheckedHandle(handle));
    state::PortStore* store = h->pipeline->port_store();
    if (store == nullptr) return InternalError("exportStore on an island without a port store");
    jclass consumer = env->GetObjectClass(sink);
    jmethodID accept = env->GetMethodID(consumer, "accept", "(Ljava/lang/Object;)V");
    env->DeleteLocalRef(consumer);
    if (accept == nullptr) return InternalError("exportStore: the sink is not a Consumer");
    SF_RETURN_NOT_OK(store->Export(
        clears != JNI_FALSE, message_bytes, [&](const std::vector<uint8_t>& message) -> Status {
          jbyteArray bytes = env->NewByteArray(static_cast<jsize>(message.size()));
          if (bytes == nullptr) return InternalError("exportStore: no memory for a message");
          env->SetByteArrayRegion(bytes, 0, static_cast<jsize>(message.size()),
                                  reinterpret_cast<const jbyte*>(message.data()));
          env->CallVoidMethod(sink, accept, bytes);
          env->DeleteLocalRef(bytes);
          if (env->ExceptionCheck()) return InternalError("exportStore: the sink threw");
          return Status::OK();
        }));
    return true;
  });
}

// Applies a state port message of writes (Flink state read back as port writes, after a restore
// from Flink's layout) to the island's port store.
JNIEXPORT void JNICALL Java_io_streamfusion_runtime_jni_NativeLib_importStore(JNIEnv* env, jclass,
                                                                              jlong handle,
                                                                              jbyteArray message) {
  CountCrossing();
  Guard<bool>(env, false, [&]() -> Result<bool> {
    SF_ASSIGN_OR_RAISE(PipelineHandle * h, CheckedHandle(handle));
    state::PortStore* store = h->pipeline->port_store();
    if (store == nullptr) return InternalError("importStore on an island without a port store");
    std::vector<uint8_t> bytes(static_cast<size_t>(env->GetArrayLength(message)));
    env->GetByteArrayRegion(message, 0, static_cast<jsize>(bytes.size()),
                            reinterpret_cast<jbyte*>(bytes.data()));
    std::vector<uint8_t> answers;
    SF_RETURN_NOT_OK(store->Serve(bytes.data(), static_cast<int64_t>(bytes.size()), &answers));
    if (!answers.empty()) return InternalError("importStore: a message with reads");
    return true;
  });
}

// Rows the island's operators dropped as late since the last call.
JNIEXPORT jlong JNICALL Java_io_streamfusion_runtime_jni_NativeLib_lateRowsDropped(JNIEnv* env,
                                                                                   jclass,
                                                                                   jlong handle) {
  CountCrossing();
  return Guard<jlong>(env, 0, [&]() -> Result<jlong> {
    SF_ASSIGN_OR_RAISE(PipelineHandle * h, CheckedHandle(handle));
    return h->pipeline->TakeLateRowsDropped();
  });
}

// Copies the output of the last processRows or flushPipeline into Java arrays sized from its
// return value. With `rows` null the row images stay where they are: the result is a direct
// buffer over them, valid until the handle's next call (the borrowed exit); else null.
JNIEXPORT jobject JNICALL Java_io_streamfusion_runtime_jni_NativeLib_copyOutput(
    JNIEnv* env, jclass, jlong handle, jbyteArray rows, jintArray offsets, jintArray source_rows) {
  CountCrossing();
  return Guard<jobject>(env, nullptr, [&]() -> Result<jobject> {
    SF_ASSIGN_OR_RAISE(PipelineHandle * h, CheckedHandle(handle));
    auto& out = h->output;
    jobject borrowed = nullptr;
    if (rows == nullptr) {
      borrowed = env->NewDirectByteBuffer(out.bytes.data(), static_cast<jlong>(out.bytes.size()));
      if (borrowed == nullptr) return InternalError("copyOutput: no direct buffer over the output");
    } else {
      SF_RETURN_NOT_OK(CopyToJava(env, rows, out.bytes, "copyOutput bytes"));
    }
    SF_RETURN_NOT_OK(CopyToJava(env, offsets, out.offsets, "copyOutput offsets"));
    if (source_rows != nullptr) {
      const jsize n = out.num_rows();
      std::vector<jint> sources(static_cast<size_t>(n));
      const std::vector<int64_t>* mapped = h->pipeline->source_rows();
      for (jsize i = 0; i < n; ++i) {
        sources[i] = static_cast<jint>(mapped ? (*mapped)[static_cast<size_t>(i)] : i);
      }
      SF_RETURN_NOT_OK(CopyToJava(env, source_rows, sources, "copyOutput source rows"));
    }
    return borrowed;
  });
}

JNIEXPORT jlong JNICALL
Java_io_streamfusion_runtime_jni_NativeLib_pipelineMemoryBytes(JNIEnv* env, jclass, jlong handle) {
  return Guard<jlong>(env, 0, [&]() -> Result<jlong> {
    SF_ASSIGN_OR_RAISE(PipelineHandle * h, CheckedHandle(handle));
    return h->pipeline->memory_bytes() +
           static_cast<jlong>(h->output.bytes.capacity() + 4 * h->output.offsets.capacity());
  });
}

JNIEXPORT void JNICALL Java_io_streamfusion_runtime_jni_NativeLib_closePipeline(JNIEnv* env, jclass,
                                                                                jlong handle) {
  CountCrossing();
  Guard<bool>(env, false, [&]() -> Result<bool> {
    PipelineHandle* h = FromHandle(handle);
    if (h != nullptr && h->udfs) h->udfs->Release(env);
    delete h;
    return true;
  });
}

}  // extern "C"
