#pragma once

// A native island: the operators of one plan::Plan, joined by forward edges, driven through the
// operator contract (operators/operator.h). A batch enters the first operator; whatever an
// operator hands out goes on to the next; what the last one hands out leaves the island. Rows are
// converted once at the island's entry and once at its exit (jni_entry.cc); Arrow batches flow
// inside.

#include <memory>
#include <utility>
#include <vector>

#include "arrow/record_batch.h"
#include "streamfusion/common/status.h"
#include "streamfusion/expression/udf_call.h"
#include "streamfusion/memory/accounting_pool.h"
#include "streamfusion/operators/operator.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/state/port_store.h"
#include "streamfusion/state/state_port.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::plan {

class Pipeline {
 public:
  // Compiles every operator of `plan` once. `memory_budget_bytes` <= 0 means unbounded.
  // `udf_caller` runs the plan's user-defined functions (Plan.udfs) in the JVM; it may be null
  // when the plan is only validated.
  static Result<std::unique_ptr<Pipeline>> Make(const Plan& plan, int64_t memory_budget_bytes,
                                                expression::UdfCaller* udf_caller = nullptr);

  // Runs one batch (schema type::ToArrowSchema(input_type())) through the island and returns
  // what leaves it: schema type::ToArrowSchema(output_type()), possibly zero rows (several
  // batches handed out by the last operator are concatenated). Returns null when an operator
  // blocked on state reads (blocked()): the JVM answers them (state_port()) and Resume goes on.
  // `times`, when given, holds a time per input row (operators::Batch::times).
  Result<std::shared_ptr<arrow::RecordBatch>> Process(
      const std::shared_ptr<arrow::RecordBatch>& input,
      std::shared_ptr<const std::vector<int64_t>> times = nullptr);

  // Event time advances to `watermark` (operators::Operator::AdvanceEventTime on each operator
  // in order): what the operators fire runs through the operators after them; returns what
  // leaves the island, as Flush does.
  Result<std::shared_ptr<arrow::RecordBatch>> AdvanceEventTime(int64_t watermark);

  // A processing-time timer fired at `now` (operators::Operator::AdvanceProcessingTime on each
  // operator in order); returns what leaves the island, as Flush does. The shell of an island
  // with a watermark assigner calls it at the assigner's periodic timers.
  Result<std::shared_ptr<arrow::RecordBatch>> AdvanceProcessingTime(int64_t now);

  // Whether the island has a watermark assigner (then the output of every call comes with the
  // watermarks emitted between its rows, TakeWatermarks).
  bool has_watermark_assigner() const { return assigner_ != nullptr; }
  // The upstream watermark status of the island's watermark assigner.
  Status SetWatermarkIdle(bool idle);
  // After a call: the watermarks that leave the island with its output, each after the output
  // rows before it, in order. The operators after the assigner advanced their event time there.
  std::vector<operators::WatermarkMark> TakeWatermarks() { return std::exchange(marks_, {}); }
  bool has_watermarks() const { return !marks_.empty(); }

  // The state the island's operators keep themselves (at most one operator owns state), or the
  // port store's, for a checkpoint; none when no operator owns state.
  Status Snapshot(operators::KeyGroupSections* out);
  // Adds one key group's section of such a snapshot, before any input.
  Status Restore(int32_t key_group, const uint8_t* data, int64_t length);
  // Rows the island's operators dropped as late since the last call.
  int64_t TakeLateRowsDropped();

  // Whether the last Process, Flush or Resume stopped at an operator waiting for state reads.
  bool blocked() const { return blocked_; }
  // Goes on with the stopped call once state_port() holds the answers; returns as Process.
  Result<std::shared_ptr<arrow::RecordBatch>> Resume();

  // The island's port to Flink keyed state (its one stateful operator's), or null when no
  // operator of the island keeps Flink keyed state. Its message holds the reads of a blocked
  // call, or the writes of a finished one, which the JVM applies before emitting the output.
  // With a port store (Plan.port_store) the island serves its port itself: no call leaves a
  // message or blocks.
  state::StatePort* state_port() { return port_.get(); }
  // The native store that serves the port, or null.
  state::PortStore* port_store() { return port_store_.get(); }

  // Flushes the island (a watermark, a checkpoint barrier, the end of input): each operator in
  // order hands out what it buffers (operators::Operator::Flush), which runs through the
  // operators after it. Returns what leaves the island, as Process does; no row of it descends
  // from an input row.
  Result<std::shared_ptr<arrow::RecordBatch>> Flush();

  // After Process or Flush: for each output row, the input row it came from (-1: none, the row has
  // no timestamp); null when output row i is input row i.
  const std::vector<int64_t>* source_rows() const {
    return source_rows_identity_ ? nullptr : &source_rows_;
  }

  // Bytes held: the island's pool (its operators' pools are children of it, counted once) and
  // what its operators hold beyond it.
  int64_t memory_bytes() const;

  const type::RowType& input_type() const { return input_type_; }
  const type::RowType& output_type() const { return output_type_; }
  memory::AccountingPool* pool() { return pool_.get(); }

 private:
  Pipeline() = default;

  // What each operator does after taking its input batches during a run.
  enum class After { kNothing, kFlush, kAdvanceEventTime, kAdvanceProcessingTime };

  // Runs `batches` (entering the first operator) through the island, doing `after` on each
  // operator after its input (`time`: the watermark or processing time it advances to).
  Result<std::shared_ptr<arrow::RecordBatch>> Run(std::vector<operators::Batch> batches,
                                                  After after, int64_t time = 0);
  // Starts a run of `batches` through operators [first, end) (run_), until its end or a blocked
  // operator.
  Status Start(size_t first, size_t end, std::vector<operators::Batch> batches, After after,
               int64_t time);
  // Runs `batches` through operators [first, end), which must not block; returns what the last
  // of them handed out.
  Result<std::vector<operators::Batch>> Stage(size_t first, size_t end,
                                              std::vector<operators::Batch> batches, After after,
                                              int64_t time);
  // Runs what the watermark assigner handed out (`batches`, with its watermarks) through the
  // operators after it: each watermark splits the rows, advances their event time and leaves
  // the island between the same rows; `after` is done at the end (not kAdvanceEventTime, which
  // reaches them only through the assigner).
  Result<std::shared_ptr<arrow::RecordBatch>> RunAfterAssigner(
      std::vector<operators::Batch> batches, After after, int64_t time);
  // The one operator that owns state, or null.
  operators::Operator* StateOwner();
  // Makes plan operator `op` with its family's factory (operators/operator_factory.h).
  Result<std::unique_ptr<operators::Operator>> MakeOperator(const Plan& plan, const Operator& op,
                                                            const RowType& input_proto,
                                                            const RowType& output_proto,
                                                            const type::RowType& input_type,
                                                            int64_t memory_budget_bytes,
                                                            expression::UdfCaller* udf_caller);
  // Appends `op` to the island if the island's rules allow it after the operators before it.
  Status Chain(std::unique_ptr<operators::Operator> op);
  // Goes on with the run from where it is (run_), until its last operator or a blocked one; the
  // batches the last handed out are then run_.inputs.
  Status Continue(bool resume);

  // With a port store: serves what the port holds after a call that returned `output`, resuming
  // the call while it blocks; returns the call's output.
  Result<std::shared_ptr<arrow::RecordBatch>> Served(
      Result<std::shared_ptr<arrow::RecordBatch>> output);

  // The island's output from the batches its last operator handed out; sets source_rows_.
  Result<std::shared_ptr<arrow::RecordBatch>> TakeOutput(std::vector<operators::Batch> batches);

  std::unique_ptr<memory::AccountingPool> pool_;
  type::RowType input_type_;
  type::RowType output_type_;
  std::vector<std::unique_ptr<operators::Operator>> operators_;
  std::unique_ptr<state::StatePort> port_;
  std::unique_ptr<state::PortStore> port_store_;
  std::vector<uint8_t> port_message_;
  std::vector<uint8_t> port_answers_;
  // Where a run is: the operator taking input, its input batches, how many it took, whether it
  // was flushed, and what it handed out so far.
  struct RunPosition {
    size_t op = 0;
    size_t end = 0;  // one past the last operator of the run
    std::vector<operators::Batch> inputs;
    size_t taken = 0;
    After after = After::kNothing;
    int64_t time = 0;
    bool done_after = false;
    std::vector<operators::Batch> outputs;
  };
  RunPosition run_;
  bool blocked_ = false;
  // The watermark source (of operators_[assigner_index_]), or null.
  operators::WatermarkSource* assigner_ = nullptr;
  size_t assigner_index_ = 0;
  std::vector<operators::WatermarkMark> marks_;
  std::vector<int64_t> source_rows_;
  bool source_rows_identity_ = true;
};

}  // namespace streamfusion::plan
