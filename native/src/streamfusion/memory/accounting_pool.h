#pragma once

// Native memory accounting. Every native allocation of an operator goes through an
// AccountingPool: it counts the bytes in use, refuses allocations past its budget with
// OutOfMemory (a clear error, never an OOM kill) and adds its usage to a process-wide counter
// that the Java side reports as a metric and that tests check returns to zero.
//
// Pools nest: the pool of an operator inside an island is a child of the island's pool. A
// child's bytes count in its parent too, so the island's one budget bounds everything its
// operators hold; only the root pool adds to the process-wide counter.

#include <atomic>
#include <cstdint>
#include <string>

#include "arrow/memory_pool.h"

namespace streamfusion::memory {

class AccountingPool final : public arrow::MemoryPool {
 public:
  // `budget_bytes` <= 0 means unbounded. A `parent` also counts (and bounds) this pool's bytes.
  explicit AccountingPool(int64_t budget_bytes, AccountingPool* parent = nullptr);
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
  AccountingPool* parent() const { return parent_; }
  // Bytes in use by this pool itself, not by its children.
  int64_t own_bytes() const {
    return bytes_.load(std::memory_order_relaxed) - child_bytes_.load(std::memory_order_relaxed);
  }

  // Counts `bytes` held outside Arrow buffers (native state in standard containers) as in use,
  // or refuses them past the budget of this pool or of a parent; Release gives them back.
  arrow::Status Reserve(int64_t bytes) { return Charge(bytes, /*from_child=*/false); }
  void Release(int64_t bytes) { Uncharge(bytes, /*from_child=*/false); }

  // Bytes in use by all AccountingPools of this process.
  static int64_t GlobalBytesInUse();

 private:
  arrow::Status Charge(int64_t delta, bool from_child);
  void Uncharge(int64_t delta, bool from_child);

  AccountingPool* parent_;
  arrow::MemoryPool* allocator_;
  std::atomic<int64_t> child_bytes_{0};
  const int64_t budget_;
  std::atomic<int64_t> bytes_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> total_{0};
  std::atomic<int64_t> count_{0};
};

}  // namespace streamfusion::memory
