#pragma once

// What the JNI entry points (jni_entry.cc) and the up-calls into the JVM (jvm_upcalls.cc) share.
// Only files of this folder include <jni.h>.

#include <jni.h>

#include <atomic>
#include <cstdint>

namespace streamfusion::jni {

// JNI crossings since the library was loaded: every call of an exported function (but
// jniCrossings itself) and every up-call into the JVM from a batch's work. Read per job by the
// benchmarks (crossings per input batch); relaxed, as a statistic.
inline std::atomic<uint64_t> g_jni_crossings{0};

inline void CountCrossing() {
  g_jni_crossings.fetch_add(1, std::memory_order_relaxed);
}

// A pinned view of a Java primitive array, released on scope exit. No JNI call may happen
// while it is alive (GetPrimitiveArrayCritical rules), so callers copy out and release first.
class CriticalArray {
 public:
  CriticalArray(JNIEnv* env, jarray array) : env_(env), array_(array) {
    data_ = array ? env->GetPrimitiveArrayCritical(array, nullptr) : nullptr;
  }
  ~CriticalArray() { Release(); }
  void Release() {
    if (data_ != nullptr) env_->ReleasePrimitiveArrayCritical(array_, data_, JNI_ABORT);
    data_ = nullptr;
  }
  void* data() const { return data_; }

 private:
  JNIEnv* env_;
  jarray array_;
  void* data_;
};

}  // namespace streamfusion::jni
