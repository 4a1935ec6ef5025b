#pragma once

// Up-calls from native code into the JVM: a pipeline's user-defined functions (through its
// UdfBridge object), java.lang.Math (JvmMath) and Flink's and the JVM's text formats and parsers
// (JvmText). Installed into the engine's hooks (expression/jvm_calls.h) when the library loads.

#include <jni.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "streamfusion/batch/binary_row.h"
#include "streamfusion/common/status.h"
#include "streamfusion/expression/udf_call.h"
#include "streamfusion/jni/jni_util.h"

namespace streamfusion::jni {

// Calls a pipeline's user-defined functions through its Java UdfBridge object:
//   byte[] invoke(int udf, byte[] argumentRows, int[] argumentOffsets, int numRows,
//                 int[] resultOffsets)
// The JNIEnv is the one of the task thread that is inside a pipeline call (set for the
// duration of that call by EnvScope); a UDF is never called from any other thread.
class JvmUdfCaller final : public expression::UdfCaller {
 public:
  static Result<std::unique_ptr<JvmUdfCaller>> Make(JNIEnv* env, jobject bridge) {
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

  void Release(JNIEnv* env) {
    for (ReusedArray* reused : {&rows_, &offsets_, &result_offsets_}) {
      if (reused->array != nullptr) env->DeleteGlobalRef(reused->array);
      *reused = ReusedArray{};
    }
    if (bridge_ != nullptr) env->DeleteGlobalRef(bridge_);
    bridge_ = nullptr;
  }

  // Makes `env` the thread's JNIEnv for UDF calls while alive.
  class EnvScope {
   public:
    EnvScope(JvmUdfCaller* caller, JNIEnv* env) : caller_(caller) {
      if (caller_ != nullptr) caller_->env_ = env;
    }
    ~EnvScope() {
      if (caller_ != nullptr) caller_->env_ = nullptr;
    }

   private:
    JvmUdfCaller* caller_;
  };

  Status Call(int32_t udf_index, const batch::BinaryRowBuffer& arguments,
              const ResultConsumer& consume) override {
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

 private:
  // A Java array held across calls (global reference) and its length.
  struct ReusedArray {
    jarray array = nullptr;
    jsize length = 0;
  };

  JvmUdfCaller() = default;

  // Makes `reused` hold at least `needed` elements; false when the JVM is out of memory.
  static bool Reserve(JNIEnv* env, ReusedArray* reused, jsize needed, bool is_bytes) {
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

  ReusedArray rows_;
  ReusedArray offsets_;
  ReusedArray result_offsets_;
  jobject bridge_ = nullptr;
  jmethodID invoke_ = nullptr;
  JNIEnv* env_ = nullptr;
};

// Caches the JVM's up-call classes and methods and installs the engine's hooks; JNI_ERR when a
// class or method is missing.
jint InstallJvmUpcalls(JavaVM* vm, JNIEnv* env);

// Removes the hooks and releases the cached classes (`env` may be null).
void RemoveJvmUpcalls(JNIEnv* env);

}  // namespace streamfusion::jni
