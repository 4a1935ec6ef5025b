#include "streamfusion/memory/accounting_pool.h"

namespace streamfusion::memory {

namespace {
std::atomic<int64_t> g_bytes_in_use{0};
}

AccountingPool::AccountingPool(int64_t budget_bytes, AccountingPool* parent)
    : parent_(parent),
      allocator_(parent ? parent->allocator_ : arrow::default_memory_pool()),
      budget_(budget_bytes) {}

AccountingPool::~AccountingPool() {
  // Whatever is still allocated when the pool dies is owned by buffers that outlive their
  // operator; keep the global figure honest by leaving it counted (tests catch such leaks).
}

arrow::Status AccountingPool::Charge(int64_t delta, bool from_child) {
  int64_t now = bytes_.fetch_add(delta, std::memory_order_relaxed) + delta;
  if (budget_ > 0 && now > budget_) {
    bytes_.fetch_sub(delta, std::memory_order_relaxed);
    return arrow::Status::OutOfMemory(
        "StreamFusion native memory budget exceeded (streamfusion.memory.budget): requested ",
        delta, " bytes with ", now - delta, " of ", budget_, " bytes in use");
  }
  if (parent_ != nullptr) {
    arrow::Status status = parent_->Charge(delta, /*from_child=*/true);
    if (!status.ok()) {
      bytes_.fetch_sub(delta, std::memory_order_relaxed);
      return status;
    }
  } else {
    g_bytes_in_use.fetch_add(delta, std::memory_order_relaxed);
  }
  if (from_child) child_bytes_.fetch_add(delta, std::memory_order_relaxed);
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return arrow::Status::OK();
}

void AccountingPool::Uncharge(int64_t delta, bool from_child) {
  bytes_.fetch_sub(delta, std::memory_order_relaxed);
  if (from_child) child_bytes_.fetch_sub(delta, std::memory_order_relaxed);
  if (parent_ != nullptr) {
    parent_->Uncharge(delta, /*from_child=*/true);
  } else {
    g_bytes_in_use.fetch_sub(delta, std::memory_order_relaxed);
  }
}

arrow::Status AccountingPool::Allocate(int64_t size, int64_t alignment, uint8_t** out) {
  ARROW_RETURN_NOT_OK(Reserve(size));
  arrow::Status status = allocator_->Allocate(size, alignment, out);
  if (!status.ok()) {
    Release(size);
    return status;
  }
  total_.fetch_add(size, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  return status;
}

arrow::Status AccountingPool::Reallocate(int64_t old_size, int64_t new_size, int64_t alignment,
                                         uint8_t** ptr) {
  int64_t delta = new_size - old_size;
  if (delta > 0) ARROW_RETURN_NOT_OK(Reserve(delta));
  arrow::Status status = allocator_->Reallocate(old_size, new_size, alignment, ptr);
  if (!status.ok()) {
    if (delta > 0) Release(delta);
    return status;
  }
  if (delta < 0) Release(-delta);
  if (delta > 0) total_.fetch_add(delta, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  return status;
}

void AccountingPool::Free(uint8_t* buffer, int64_t size, int64_t alignment) {
  allocator_->Free(buffer, size, alignment);
  Release(size);
}

int64_t AccountingPool::GlobalBytesInUse() {
  return g_bytes_in_use.load(std::memory_order_relaxed);
}

}  // namespace streamfusion::memory
