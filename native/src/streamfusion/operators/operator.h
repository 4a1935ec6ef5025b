#pragma once

// The native operator contract: what every native operator implements, and all that an island
// (plan::Pipeline, a chain of native operators joined by forward edges) and the JVM shell around
// it may ask of one. Written after Velox's exec/Operator.h, for Flink's streaming operators: time
// advances by watermarks and processing-time timers, state is Flink's keyed state (reached
// through the JVM) or the operator's own, and a checkpoint barrier or the end of a bundle forces
// buffered work out.
//
// Life of an operator, driven by one thread at a time (the Flink task's):
//
//   Make (the family's factory, from its plan node: operators/operator_factory.h)
//   { AddInput | AdvanceEventTime | AdvanceProcessingTime | Flush }*, each followed by
//       GetOutput until it returns no batch
//   MemoryBytes at any time (metrics, budgets)
//   destruction (the island's Close; nothing more is emitted)
//
// State: an operator over Flink keyed state reads and writes it through the island's state port
// (state/state_port.h), given to it when it is made. A call that needs state it has not read
// records the reads and returns with blocked() true; the island has the JVM answer them and
// calls Resume, which goes on with the call (and may block again). Only when blocked() is false
// is the call done and its output ready for GetOutput. The writes an operator records are
// applied by the JVM in order, before the island's output is emitted.
//
// Errors: every method returns a Status. A UserError is a condition on which Flink fails the
// same job, with Flink's message (and, across JNI, Flink's exception class); an InternalError is
// a bug. Either fails the task; the operator is not called again, and Flink restores the job from
// its last checkpoint.
//
// Every native operator runs on this contract: Calc, the watermark assigner, the local window
// phase, the group aggregation, and the window TVF, legacy group and session window aggregations
// over Flink state (through the state port, with its namespaces and timers) or native-owned state.

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "streamfusion/common/status.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::operators {

// A batch of rows flowing between operators, and out of an island.
struct Batch {
  // Schema type::ToArrowSchema(row type), with the "$row_kind" column (Flink's RowKind bytes).
  std::shared_ptr<arrow::RecordBatch> rows;

  // For each row, the row of the island's input batch it descends from: the JVM side gives each
  // output record its input record's timestamp where `timestamped` (as GroupAggFunction and the
  // watermark assigner keep the timestamp of the record they process), and operators on
  // processing time read the row's `times`. Empty with `identity` set when output row i is input
  // row i; empty with `identity` unset when the rows descend from no input row (fired windows, a
  // mini-batch bundle), which Flink emits without a timestamp.
  std::vector<int64_t> source_rows;
  bool identity = true;
  // Whether the rows' records still carry their input records' timestamps. Unset once an
  // operator emitted them in records of its own, without a timestamp (Flink's generated Calc
  // does: its output record is not its input record), while source_rows still name the rows.
  bool timestamped = true;

  // Per row of the island's input batch, indexed as source_rows: a time the shell passed with
  // it (each row's arrival, for an operator on processing time that takes it per record, as
  // Flink's WindowOperator does); null when the shell passed none.
  std::shared_ptr<const std::vector<int64_t>> times;
};

// Rows [offset, offset + length) of `batch`, each still naming the island input row it
// descends from.
Batch SliceRows(const Batch& batch, int64_t offset, int64_t length);

// An operator's own state (not Flink's keyed state) as written for a checkpoint: one section
// per Flink key group that has state, in ascending key group order; section i is
// bytes[offsets[i], offsets[i + 1]) of key group key_groups[i]. The JVM writes each into Flink's
// raw keyed state, so a restore at another parallelism gets the sections of its key groups.
struct KeyGroupSections {
  std::vector<uint8_t> bytes;
  std::vector<int32_t> key_groups;
  std::vector<int32_t> offsets;
};

// A watermark an operator emitted: after the first `rows` rows it handed out since the last
// TakeWatermarks.
struct WatermarkMark {
  int64_t rows;
  int64_t watermark;
};

// What an island asks of an operator that generates watermarks (Flink's watermark assigner): the
// island splits the rows after it at the watermarks it emits.
class WatermarkSource {
 public:
  virtual ~WatermarkSource() = default;
  // The upstream watermark status: while idle, advanced watermarks are not emitted.
  virtual void SetIdle(bool idle) = 0;
  // The watermarks emitted since the last call, in order.
  virtual std::vector<WatermarkMark> TakeWatermarks() = 0;
};

class Operator {
 public:
  virtual ~Operator() = default;

  // The type of the rows this operator emits.
  virtual const type::RowType& output_type() const = 0;

  // Takes one batch of input rows (schema of the input type the operator was made for). The
  // operator may produce output at once, keep the rows (a bundle, a window's accumulators), or
  // both. The caller then drains GetOutput before the next call.
  virtual Status AddInput(Batch input) = 0;

  // The next batch of output, or none when the operator has nothing more to emit for now. A
  // returned batch may hold zero rows only when the operator says so in its documentation;
  // islands skip empty batches.
  virtual Result<std::optional<Batch>> GetOutput() = 0;

  // Event time advances to `watermark` (a Flink watermark: no later row will have a timestamp
  // at or below it): the operator fires what is then due (windows whose end passed) and makes
  // it available through GetOutput, in Flink's order. Called before the watermark is forwarded
  // downstream. Default: nothing is time-driven.
  virtual Status AdvanceEventTime(int64_t watermark);

  // A processing-time timer the operator asked for fired at `now` (milliseconds since the
  // epoch): the operator fires what is then due. Default: nothing is time-driven.
  virtual Status AdvanceProcessingTime(int64_t now);

  // Forces out what the operator buffers although no time has come (the end of a mini-batch
  // bundle, a checkpoint barrier, the end of the input). Default: nothing is buffered.
  virtual Status Flush();

  // Bytes the operator holds beyond its pool's accounting (reusable buffers); the island adds
  // its pool's bytes. Default: none.
  virtual int64_t MemoryBytes() const;

  // Whether the last call waits for the answers to state reads (see "State" above). Default:
  // never; an operator that keeps no Flink keyed state does not block.
  virtual bool blocked() const;

  // Goes on with the blocked call once the island's state port holds the answers.
  virtual Status Resume();

  // Whether the operator keeps state of its own (native memory), which Snapshot writes and
  // Restore reads back. Default: none.
  virtual bool owns_state() const;
  virtual Status Snapshot(KeyGroupSections* out);
  // Adds one key group's section, as Snapshot wrote it, before any input.
  virtual Status Restore(int32_t key_group, const uint8_t* data, int64_t length);

  // Rows dropped as late since the last call (Flink's numLateRecordsDropped). Default: none.
  virtual int64_t TakeLateRowsDropped();

  // Abilities, which the island checks when it chains the operators it made (plan/pipeline.cc)
  // instead of knowing their kinds.
  //
  // Whether the output for a batch depends on that batch alone: no state, nothing buffered,
  // nothing time-driven (a Calc). Only such operators run before a watermark source in an
  // island. Default: false.
  virtual bool stateless() const;
  // Whether a call may wait for state reads (blocked()). None follows a watermark source in an
  // island: its reads would stop a run between two of the source's watermarks. Default: false.
  virtual bool may_block() const;
  // The operator's watermark generation when it generates watermarks (an island has at most
  // one), else null. Default: null.
  virtual WatermarkSource* watermark_source();
};

// An operator that has at most one batch to hand out after each call (AddInput, Flush, ...):
// the call sets it with Emit, GetOutput hands it out once.
class SingleOutputOperator : public Operator {
 public:
  Result<std::optional<Batch>> GetOutput() final;

 protected:
  // The batch the next GetOutput hands out.
  void Emit(Batch batch) { pending_ = std::move(batch); }

 private:
  std::optional<Batch> pending_;
};

// Runs the single-batch contract of a stateless operator whose output for a batch depends on
// that batch only (Calc): output is computed in AddInput and handed out by GetOutput once.
class StatelessOperator : public SingleOutputOperator {
 public:
  Status AddInput(Batch input) final;
  bool stateless() const final { return true; }

  // The output rows of one batch, outside an island (tests, benchmarks).
  Result<std::shared_ptr<arrow::RecordBatch>> Process(
      const std::shared_ptr<arrow::RecordBatch>& input);

 protected:
  // The output rows of `input` (schema of output_type()), possibly zero; `kept` is set to the
  // input rows the output rows came from when they are not one to one (a filter), else left
  // empty with `*identity` true.
  virtual Result<std::shared_ptr<arrow::RecordBatch>> Compute(
      const std::shared_ptr<arrow::RecordBatch>& input, std::vector<int64_t>* kept,
      bool* identity) = 0;
  // Whether its output records keep the timestamps of its input records.
  virtual bool KeepsTimestamps() const { return true; }
};

}  // namespace streamfusion::operators
