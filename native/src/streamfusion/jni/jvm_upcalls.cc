#include "streamfusion/jni/jvm_upcalls.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "streamfusion/expression/jvm_calls.h"
#include "streamfusion/jni/jni_util.h"

namespace streamfusion::jni {
namespace {

// java.lang.Math for expressions (jvm_calls.h): the static JvmMath.apply(int, double[], double[],
// int, double[]), called on the task thread that is inside the pipeline call.
JavaVM* g_vm = nullptr;
jclass g_jvm_math = nullptr;
jmethodID g_jvm_math_apply = nullptr;

Status CallJvmMath(expression::JvmMathOp op, const double* a, const double* b, int64_t n,
                   double* out) {
  JNIEnv* env = nullptr;
  if (g_vm == nullptr || g_vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) != JNI_OK) {
    return InternalError("java.lang.Math called from a thread outside the JVM");
  }
  if (n > std::numeric_limits<jint>::max()) return InternalError("batch of ", n, " rows");
  const auto length = static_cast<jsize>(n);
  jdoubleArray arrays[3] = {env->NewDoubleArray(length),
                            b == nullptr ? nullptr : env->NewDoubleArray(length),
                            env->NewDoubleArray(length)};
  Status status;
  if (arrays[0] == nullptr || (b != nullptr && arrays[1] == nullptr) || arrays[2] == nullptr) {
    env->ExceptionClear();
    status = Status::OutOfMemory("Cannot allocate the Java arrays of a java.lang.Math call of ", n,
                                 " rows");
  } else {
    env->SetDoubleArrayRegion(arrays[0], 0, length, a);
    if (b != nullptr) env->SetDoubleArrayRegion(arrays[1], 0, length, b);
    CountCrossing();
    env->CallStaticVoidMethod(g_jvm_math, g_jvm_math_apply, static_cast<jint>(op), arrays[0],
                              arrays[1], length, arrays[2]);
    if (env->ExceptionCheck()) {
      // Left pending: it wins over the NativeException (ThrowNative keeps the first exception).
      status = Status::Cancelled("java.lang.Math call #", static_cast<int32_t>(op), " failed");
    } else {
      env->GetDoubleArrayRegion(arrays[2], 0, length, out);
    }
  }
  for (jdoubleArray array : arrays) {
    if (array != nullptr) env->DeleteLocalRef(array);
  }
  return status;
}

// The JVM locale's date-time texts (jvm_calls.h): the static byte[][] JvmText.format(String,
// long[], long[]), called while a pipeline's expressions are compiled.
jclass g_jvm_text = nullptr;
jmethodID g_jvm_text_format = nullptr;

// A Java string's (modified) UTF-8 text, or `fallback` when it cannot be read; deletes the
// local reference.
std::string TakeString(JNIEnv* env, jstring str, std::string fallback) {
  const char* chars = env->GetStringUTFChars(str, nullptr);
  if (chars != nullptr) {
    fallback = chars;
    env->ReleaseStringUTFChars(str, chars);
  }
  env->DeleteLocalRef(str);
  return fallback;
}

// The pending exception's toString(), cleared.
std::string TakeExceptionText(JNIEnv* env) {
  jthrowable thrown = env->ExceptionOccurred();
  env->ExceptionClear();
  if (thrown == nullptr) return "unknown exception";
  std::string text = "exception";
  jclass type = env->GetObjectClass(thrown);
  jmethodID to_string = env->GetMethodID(type, "toString", "()Ljava/lang/String;");
  auto str = to_string == nullptr ? nullptr
                                  : static_cast<jstring>(env->CallObjectMethod(thrown, to_string));
  if (env->ExceptionCheck()) env->ExceptionClear();
  if (str != nullptr) text = TakeString(env, str, text);
  env->DeleteLocalRef(type);
  env->DeleteLocalRef(thrown);
  return text;
}

// The byte[][] a JvmText method returned (null or a pending exception: an error), as strings.
Result<std::vector<std::string>> TakeTexts(JNIEnv* env, jobjectArray texts, std::string_view what) {
  if (env->ExceptionCheck() || texts == nullptr) {
    return Status::Invalid(what, TakeExceptionText(env));
  }
  std::vector<std::string> out;
  for (jsize i = 0; i < env->GetArrayLength(texts); ++i) {
    auto bytes = static_cast<jbyteArray>(env->GetObjectArrayElement(texts, i));
    std::string text(static_cast<size_t>(env->GetArrayLength(bytes)), '\0');
    env->GetByteArrayRegion(bytes, 0, static_cast<jsize>(text.size()),
                            reinterpret_cast<jbyte*>(text.data()));
    env->DeleteLocalRef(bytes);
    out.push_back(std::move(text));
  }
  env->DeleteLocalRef(texts);
  return out;
}

Result<std::vector<std::string>> CallJvmFormat(
    std::string_view pattern, const std::vector<std::pair<int64_t, int64_t>>& samples) {
  JNIEnv* env = nullptr;
  if (g_vm == nullptr || g_vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) != JNI_OK) {
    return InternalError("DateTimeFormatter called from a thread outside the JVM");
  }
  const auto n = static_cast<jsize>(samples.size());
  std::vector<jlong> days(samples.size());
  std::vector<jlong> nanos(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    days[i] = samples[i].first;
    nanos[i] = samples[i].second;
  }
  // The pattern is a run of one ASCII letter: its modified UTF-8 is plain UTF-8.
  jstring jpattern = env->NewStringUTF(std::string(pattern).c_str());
  jlongArray jdays = env->NewLongArray(n);
  jlongArray jnanos = env->NewLongArray(n);
  Result<std::vector<std::string>> result = std::vector<std::string>();
  if (jpattern == nullptr || jdays == nullptr || jnanos == nullptr) {
    env->ExceptionClear();
    result = Status::OutOfMemory("Cannot allocate the arguments of a DateTimeFormatter call");
  } else {
    env->SetLongArrayRegion(jdays, 0, n, days.data());
    env->SetLongArrayRegion(jnanos, 0, n, nanos.data());
    CountCrossing();
    auto texts = static_cast<jobjectArray>(
        env->CallStaticObjectMethod(g_jvm_text, g_jvm_text_format, jpattern, jdays, jnanos));
    result = TakeTexts(env, texts, "DateTimeFormatter: ");
  }
  for (jobject local : {static_cast<jobject>(jpattern), static_cast<jobject>(jdays),
                        static_cast<jobject>(jnanos)}) {
    if (local != nullptr) env->DeleteLocalRef(local);
  }
  return result;
}

jmethodID g_jvm_legacy_format = nullptr;

// SimpleDateFormat in the JVM (jvm_calls.h): byte[][] JvmText.legacyFormat(byte[], long[]).
Result<std::vector<std::string>> CallJvmLegacyFormat(std::string_view pattern,
                                                     const std::vector<int64_t>& local_millis) {
  JNIEnv* env = nullptr;
  if (g_vm == nullptr || g_vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) != JNI_OK) {
    return InternalError("SimpleDateFormat called from a thread outside the JVM");
  }
  if (env->PushLocalFrame(8) != 0) {
    env->ExceptionClear();
    return Status::OutOfMemory("Cannot allocate the arguments of a SimpleDateFormat call");
  }
  const auto n = static_cast<jsize>(local_millis.size());
  jbyteArray jpattern = env->NewByteArray(static_cast<jsize>(pattern.size()));
  jlongArray jmillis = env->NewLongArray(n);
  Result<std::vector<std::string>> result = std::vector<std::string>();
  if (jpattern == nullptr || jmillis == nullptr) {
    env->ExceptionClear();
    result = Status::OutOfMemory("Cannot allocate the arguments of a SimpleDateFormat call");
  } else {
    env->SetByteArrayRegion(jpattern, 0, static_cast<jsize>(pattern.size()),
                            reinterpret_cast<const jbyte*>(pattern.data()));
    std::vector<jlong> millis(local_millis.begin(), local_millis.end());
    env->SetLongArrayRegion(jmillis, 0, n, millis.data());
    CountCrossing();
    auto texts = static_cast<jobjectArray>(
        env->CallStaticObjectMethod(g_jvm_text, g_jvm_legacy_format, jpattern, jmillis));
    result = TakeTexts(env, texts, "SimpleDateFormat: ");
  }
  env->PopLocalFrame(nullptr);
  return result;
}

jmethodID g_jvm_integer_format = nullptr;

Result<std::string> CallJvmIntegerFormat() {
  JNIEnv* env = nullptr;
  if (g_vm == nullptr || g_vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) != JNI_OK) {
    return InternalError("NumberFormat called from a thread outside the JVM");
  }
  CountCrossing();
  auto bytes =
      static_cast<jbyteArray>(env->CallStaticObjectMethod(g_jvm_text, g_jvm_integer_format));
  if (env->ExceptionCheck() || bytes == nullptr) {
    return Status::Invalid("NumberFormat: ", TakeExceptionText(env));
  }
  std::string text(static_cast<size_t>(env->GetArrayLength(bytes)), '\0');
  env->GetByteArrayRegion(bytes, 0, static_cast<jsize>(text.size()),
                          reinterpret_cast<jbyte*>(text.data()));
  env->DeleteLocalRef(bytes);
  return text;
}

// TO_TIMESTAMP(text, pattern) in the JVM (jvm_calls.h): the static
// boolean[] JvmText.parseTimestamps(byte[] pattern, byte[][] texts, long[] millis).
jmethodID g_jvm_parse_timestamps = nullptr;

jmethodID g_jvm_flink_parse = nullptr;

Status CallJvmFlinkParse(expression::FlinkStringParse kind, std::string_view text,
                         int32_t precision) {
  static constexpr const char* kTargets[] = {"TIMESTAMP", "DATE", "TIME"};
  const char* target = kTargets[static_cast<int32_t>(kind)];
  JNIEnv* env = nullptr;
  if (g_vm == nullptr || g_vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) != JNI_OK) {
    return InternalError("CAST to ", target, " failed on a thread outside the JVM");
  }
  jbyteArray jtext = env->NewByteArray(static_cast<jsize>(text.size()));
  if (jtext == nullptr) {
    env->ExceptionClear();
    return Status::OutOfMemory("Cannot allocate the text of a failed CAST to ", target);
  }
  env->SetByteArrayRegion(jtext, 0, static_cast<jsize>(text.size()),
                          reinterpret_cast<const jbyte*>(text.data()));
  CountCrossing();
  auto thrown = static_cast<jstring>(env->CallStaticObjectMethod(
      g_jvm_text, g_jvm_flink_parse, static_cast<jint>(kind), jtext, static_cast<jint>(precision)));
  env->DeleteLocalRef(jtext);
  if (env->ExceptionCheck()) {
    return Status::Invalid("CAST to ", target, ": ", TakeExceptionText(env));
  }
  if (thrown == nullptr) {
    return InternalError("CAST to ", target, ": the native parser refused '", text,
                         "', which Flink parses");
  }
  // The toString() of Flink's exception, which JvmText kept: NativeException.of throws that
  // exception when this error reaches the JVM.
  return Status::Invalid(TakeString(env, thrown, "CAST failed"));
}

Status CallJvmParseTimestamps(std::string_view pattern, const std::vector<std::string_view>& texts,
                              std::vector<std::optional<int64_t>>* out) {
  JNIEnv* env = nullptr;
  if (g_vm == nullptr || g_vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) != JNI_OK) {
    return InternalError("TO_TIMESTAMP called from a thread outside the JVM");
  }
  if (env->PushLocalFrame(16) != 0) {
    env->ExceptionClear();
    return Status::OutOfMemory("Cannot allocate the arguments of a TO_TIMESTAMP call");
  }
  auto bytes = [&](std::string_view text) {
    jbyteArray array = env->NewByteArray(static_cast<jsize>(text.size()));
    if (array != nullptr) {
      env->SetByteArrayRegion(array, 0, static_cast<jsize>(text.size()),
                              reinterpret_cast<const jbyte*>(text.data()));
    }
    return array;
  };
  const auto n = static_cast<jsize>(texts.size());
  Status status;
  jbyteArray jpattern = bytes(pattern);
  jclass byte_array = env->FindClass("[B");
  jobjectArray jtexts =
      byte_array == nullptr ? nullptr : env->NewObjectArray(n, byte_array, nullptr);
  jlongArray jmillis = env->NewLongArray(n);
  bool allocated = jpattern != nullptr && jtexts != nullptr && jmillis != nullptr;
  for (jsize i = 0; allocated && i < n; ++i) {
    jbyteArray text = bytes(texts[static_cast<size_t>(i)]);
    allocated = text != nullptr;
    if (allocated) {
      env->SetObjectArrayElement(jtexts, i, text);
      env->DeleteLocalRef(text);
    }
  }
  if (!allocated) {
    env->ExceptionClear();
    status = Status::OutOfMemory("Cannot allocate the arguments of a TO_TIMESTAMP call");
  } else {
    CountCrossing();
    auto is_null = static_cast<jbooleanArray>(
        env->CallStaticObjectMethod(g_jvm_text, g_jvm_parse_timestamps, jpattern, jtexts, jmillis));
    if (env->ExceptionCheck() || is_null == nullptr) {
      status = Status::Invalid("TO_TIMESTAMP: ", TakeExceptionText(env));
    } else {
      std::vector<jlong> millis(texts.size());
      std::vector<jboolean> nulls(texts.size());
      env->GetLongArrayRegion(jmillis, 0, n, millis.data());
      env->GetBooleanArrayRegion(is_null, 0, n, nulls.data());
      out->clear();
      for (size_t i = 0; i < texts.size(); ++i) {
        out->push_back(nulls[i] ? std::nullopt : std::optional<int64_t>(millis[i]));
      }
    }
  }
  env->PopLocalFrame(nullptr);
  return status;
}

}  // namespace

Result<std::unique_ptr<JvmUdfCaller>> JvmUdfCaller::Make(JNIEnv* env, jobject bridge) {
  std::unique_ptr<JvmUdfCaller> caller(new JvmUdfCaller());
  jclass type = env->GetObjectClass(bridge);
  caller->invoke_ = env->GetMethodID(type, "invoke", "(I[B[II[I)[B");
  env->DeleteLocalRef(type);
  if (caller->invoke_ == nullptr) {
    env->ExceptionClear();
    return InternalError(
        "The UDF bridge object has no method byte[] invoke(int, byte[], int[], int, int[])");
  }
  caller->bridge_ = env->NewGlobalRef(bridge);
  return caller;
}

void JvmUdfCaller::Release(JNIEnv* env) {
  for (ReusedArray* reused : {&rows_, &offsets_, &result_offsets_}) {
    if (reused->array != nullptr) env->DeleteGlobalRef(reused->array);
    *reused = ReusedArray{};
  }
  if (bridge_ != nullptr) env->DeleteGlobalRef(bridge_);
  bridge_ = nullptr;
}

Status JvmUdfCaller::Call(int32_t udf_index, const batch::BinaryRowBuffer& arguments,
                          const ResultConsumer& consume) {
  JNIEnv* env = env_;
  if (env == nullptr || bridge_ == nullptr) {
    return InternalError("UDF #", udf_index, " called outside a pipeline call");
  }
  const jint n = arguments.num_rows();
  const auto bytes = static_cast<jsize>(arguments.bytes.size());
  // The Java arrays are kept between calls and grow as needed (the JVM side reads only the
  // first n + 1 offsets and the bytes they cover).
  if (!Reserve(env, &rows_, bytes, /*is_bytes=*/true) ||
      !Reserve(env, &offsets_, n + 1, /*is_bytes=*/false) ||
      !Reserve(env, &result_offsets_, n + 1, /*is_bytes=*/false)) {
    env->ExceptionClear();
    return Status::OutOfMemory("Cannot allocate the Java arrays of a UDF call of ", n, " rows");
  }
  auto rows = static_cast<jbyteArray>(rows_.array);
  auto offsets = static_cast<jintArray>(offsets_.array);
  auto result_offsets = static_cast<jintArray>(result_offsets_.array);
  env->SetByteArrayRegion(rows, 0, bytes, reinterpret_cast<const jbyte*>(arguments.bytes.data()));
  env->SetIntArrayRegion(offsets, 0, n + 1,
                         reinterpret_cast<const jint*>(arguments.offsets.data()));
  CountCrossing();
  auto results = static_cast<jbyteArray>(
      env->CallObjectMethod(bridge_, invoke_, udf_index, rows, offsets, n, result_offsets));
  Status status;
  if (env->ExceptionCheck() || results == nullptr) {
    // UdfBridge keeps the function's exception and rethrows it when this status reaches Java;
    // an exception still pending here (e.g. an Error the bridge could not catch) is left
    // pending and wins over the NativeException (ThrowNative keeps the first exception).
    status = Status::Cancelled("User-defined function #", udf_index, " failed");
  } else {
    const jsize capacity = env->GetArrayLength(results);
    CriticalArray data(env, results);
    CriticalArray ends(env, result_offsets);
    const auto* offs = static_cast<const int32_t*>(ends.data());
    if (offs[0] < 0 || offs[n] > capacity) {
      status = InternalError("UDF results exceed their array: ", offs[n]);
    } else {
      status = consume(static_cast<const uint8_t*>(data.data()), offs, n);
    }
  }
  if (results != nullptr) env->DeleteLocalRef(results);
  return status;
}

bool JvmUdfCaller::Reserve(JNIEnv* env, ReusedArray* reused, jsize needed, bool is_bytes) {
  if (reused->array != nullptr && reused->length >= needed) return true;
  const jsize length = std::max<jsize>(needed, reused->length + reused->length / 2);
  jarray local = is_bytes ? static_cast<jarray>(env->NewByteArray(length))
                          : static_cast<jarray>(env->NewIntArray(length));
  if (local == nullptr) return false;
  if (reused->array != nullptr) env->DeleteGlobalRef(reused->array);
  reused->array = static_cast<jarray>(env->NewGlobalRef(local));
  env->DeleteLocalRef(local);
  reused->length = length;
  return reused->array != nullptr;
}

jint InstallJvmUpcalls(JavaVM* vm, JNIEnv* env) {
  jclass local = env->FindClass("io/streamfusion/runtime/callbacks/JvmMath");
  if (local == nullptr) return JNI_ERR;
  g_jvm_math = static_cast<jclass>(env->NewGlobalRef(local));
  env->DeleteLocalRef(local);
  g_jvm_math_apply = env->GetStaticMethodID(g_jvm_math, "apply", "(I[D[DI[D)V");
  if (g_jvm_math_apply == nullptr) return JNI_ERR;
  local = env->FindClass("io/streamfusion/runtime/callbacks/JvmText");
  if (local == nullptr) return JNI_ERR;
  g_jvm_text = static_cast<jclass>(env->NewGlobalRef(local));
  env->DeleteLocalRef(local);
  g_jvm_text_format = env->GetStaticMethodID(g_jvm_text, "format", "(Ljava/lang/String;[J[J)[[B");
  if (g_jvm_text_format == nullptr) return JNI_ERR;
  g_jvm_integer_format = env->GetStaticMethodID(g_jvm_text, "integerFormat", "()[B");
  if (g_jvm_integer_format == nullptr) return JNI_ERR;
  g_jvm_parse_timestamps = env->GetStaticMethodID(g_jvm_text, "parseTimestamps", "([B[[B[J)[Z");
  if (g_jvm_parse_timestamps == nullptr) return JNI_ERR;
  g_jvm_flink_parse =
      env->GetStaticMethodID(g_jvm_text, "parseLikeFlink", "(I[BI)Ljava/lang/String;");
  if (g_jvm_flink_parse == nullptr) return JNI_ERR;
  g_jvm_legacy_format = env->GetStaticMethodID(g_jvm_text, "legacyFormat", "([B[J)[[B");
  if (g_jvm_legacy_format == nullptr) return JNI_ERR;
  expression::SetJvmMath(&CallJvmMath);
  expression::SetJvmFormat(&CallJvmFormat);
  expression::SetJvmIntegerFormat(&CallJvmIntegerFormat);
  expression::SetJvmParseTimestamps(&CallJvmParseTimestamps);
  expression::SetJvmFlinkParse(&CallJvmFlinkParse);
  expression::SetJvmLegacyFormat(&CallJvmLegacyFormat);
  g_vm = vm;
  return JNI_OK;
}

void RemoveJvmUpcalls(JNIEnv* env) {
  expression::SetJvmMath(nullptr);
  expression::SetJvmFormat(nullptr);
  expression::SetJvmIntegerFormat(nullptr);
  expression::SetJvmParseTimestamps(nullptr);
  expression::SetJvmFlinkParse(nullptr);
  expression::SetJvmLegacyFormat(nullptr);
  for (jclass* type : {&g_jvm_math, &g_jvm_text}) {
    if (env != nullptr && *type != nullptr) env->DeleteGlobalRef(*type);
    *type = nullptr;
  }
  g_vm = nullptr;
}

}  // namespace streamfusion::jni
