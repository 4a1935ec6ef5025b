#pragma once

// Native memory accounting. Every native allocation of an operator goes through an
// AccountingPool: it counts the bytes in use, refuses allocations past its budget with
// OutOfMemory (a clear error, never an OOM kill) and adds its usage to a process-wide counter
// that the Java side reports as a metric and that tests check returns to zero.

#include <atomic>
#include <cstdint>
#include <string>

#include "arrow/memory_pool.h"

namespace streamfusion::memory {

class AccountingPool final : public arrow::MemoryPool {
 public:
  // `budget_bytes` <= 0 means unbounded.
  explicit AccountingPool(int64_t budget_bytes, arrow::MemoryPool* parent = nullptr);
  ~AccountingPool() override;

  using arrow::MemoryPool::Allocate;
  using arrow::MemoryPool::Free;
  using arrow::MemoryPool::Reallocate;

  arrow::Status Allocate(int64_t size, int64_t alignment, uint8_t** out) override;
  arrow::Status Reallocate(int64_t old_size, int64_t new_size, int64_t alignment,
                           uint8_t** ptr) override;
  void Free(uint8_t* buffer, int64_t size, int64_t alignment) override;

  int64_t bytes_allocated() const override { return bytes_.load(std::memory_order_relaxed); }
  int64_t max_memory() const override { return peak_.load(std::memory_order_relaxed); }
  int64_t total_bytes_allocated() const override { return total_.load(std::memory_order_relaxed); }
  int64_t num_allocations() const override { return count_.load(std::memory_order_relaxed); }
  std::string backend_name() const override { return "streamfusion-accounting"; }
  int64_t budget_bytes() const { return budget_; }

  // Bytes in use by all AccountingPools of this process.
  static int64_t GlobalBytesInUse();

 private:
  arrow::Status Reserve(int64_t delta);
  void Release(int64_t delta);

  arrow::MemoryPool* parent_;
  const int64_t budget_;
  std::atomic<int64_t> bytes_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> total_{0};
  std::atomic<int64_t> count_{0};
};

}  // namespace streamfusion::memory
