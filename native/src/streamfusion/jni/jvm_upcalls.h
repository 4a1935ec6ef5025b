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

namespace streamfusion::jni {

// Calls a pipeline's user-defined functions through its Java UdfBridge object:
//   byte[] invoke(int udf, byte[] argumentRows, int[] argumentOffsets, int numRows,
//                 int[] resultOffsets)
// The JNIEnv is the one of the task thread that is inside a pipeline call (set for the
// duration of that call by EnvScope); a UDF is never called from any other thread.
class JvmUdfCaller final : public expression::UdfCaller {
 public:
  static Result<std::unique_ptr<JvmUdfCaller>> Make(JNIEnv* env, jobject bridge);

  // Drops the global references to the bridge and the reused arrays.
  void Release(JNIEnv* env);

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
              const ResultConsumer& consume) override;

 private:
  // A Java array held across calls (global reference) and its length.
  struct ReusedArray {
    jarray array = nullptr;
    jsize length = 0;
  };

  JvmUdfCaller() = default;

  // Makes `reused` hold at least `needed` elements; false when the JVM is out of memory.
  static bool Reserve(JNIEnv* env, ReusedArray* reused, jsize needed, bool is_bytes);

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
