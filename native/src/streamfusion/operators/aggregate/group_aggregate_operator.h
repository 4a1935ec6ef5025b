#pragma once

// The group aggregation (group_aggregate.h) on the operator contract, over Flink keyed state
// read and written through the state port (state/state_port.h). A batch's life:
//
//   AddInput      groups the rows by key; reads each key's accumulator, the DISTINCT and
//                 MIN/MAX map entries its rows touch, and the FIRST/LAST_VALUE order entries
//                 every run needs; blocks.
//   Resume        runs the batch with Flink's rules. A run that needs more (a MIN/MAX map scanned
//                 whole after its extreme left, order entries of retracted orders) reads them and
//                 blocks again; the next Resume runs the batch again from its start with what
//                 was read. A run that needs nothing more records the batch's writes (map
//                 clears, map entries, order entries, accumulators, in the order Flink's
//                 function leaves them) and emits the changelog.
//
// The states, as the JVM shell declares them (GroupAggregateStates.java), numbered for the
// port: 0 the accumulator ValueState "accState"; for each map m of the aggregation (its
// DISTINCT maps, then the MIN/MAX maps, then each FIRST/LAST_VALUE call's valueToOrderMap and
// orderToValueMap), 1 + 2m the MapState and 2 + 2m the ValueState of its NULL key. The LOCAL
// phase of a two-phase aggregation keeps no state and never blocks.

#include <memory>
#include <vector>

#include "streamfusion/operators/aggregate/group_aggregate.h"
#include "streamfusion/operators/operator.h"
#include "streamfusion/state/state_port.h"

namespace streamfusion::operators {

class GroupAggregateOperator : public SingleOutputOperator {
 public:
  // `plan` holds one GroupAggregateNode; `port` (owned by the island) serves its state.
  static Result<std::unique_ptr<GroupAggregateOperator>> Make(
      const plan::Plan& plan, int64_t memory_budget_bytes, state::StatePort* port,
      memory::AccountingPool* island_pool = nullptr);

  const type::RowType& output_type() const override { return output_type_; }
  Status AddInput(Batch input) override;
  // LOCAL with bundle_rows: the rows kept for the next bundle, as one bundle.
  Status Flush() override;
  // A watermark ends the bundle, as Flink's MapBundleOperator finishes its bundle on one.
  Status AdvanceEventTime(int64_t watermark) override;
  bool blocked() const override { return phase_ != Phase::kIdle; }
  // A LOCAL phase keeps no Flink state: it never waits.
  bool may_block() const override { return !local_; }
  Status Resume() override;
  int64_t MemoryBytes() const override;

  static constexpr int32_t kAccState = 0;
  static int32_t MapState(int32_t map) { return 1 + 2 * map; }
  static int32_t NullKeyState(int32_t map) { return 2 + 2 * map; }

 private:
  enum class Phase { kIdle, kFirstReads, kMoreReads };

  GroupAggregateOperator(std::unique_ptr<GroupAggregate> agg, type::RowType output_type,
                         state::StatePort* port);

  // Runs one batch of rows (a whole bundle in the bundle modes) through the aggregation.
  Status Start(Batch input);
  // LOCAL with bundle_rows: runs every whole bundle of the kept rows, and `all` the rest too;
  // emits their outputs as one batch.
  Status RunBundles(bool all);
  // Reads the distinct-map entries of the prepared batch's lookups.
  void ReadLookups();
  // Whether order map `map` is a valueToOrderMap (else an orderToValueMap).
  bool IsValueToOrderMap(int32_t map) const;
  // Reads the pending order-map entries (after Prepare or a run).
  void ReadOrderEntries();
  // Hands the answered order-map reads to the aggregation.
  Status SupplyOrderAnswers();
  // Takes the answered accumulator and lookup reads.
  Status TakeFirstAnswers();
  // Takes the answered whole maps (becoming lookups) and order entries.
  Status TakeMoreAnswers();
  // Runs the batch; blocks again or finishes it.
  Status Run();
  // Records the batch's writes and emits its changelog.
  Status Finish();
  bool IsNull(std::string_view one_field_image) const;

  std::unique_ptr<GroupAggregate> agg_;
  type::RowType output_type_;
  state::StatePort* port_;
  Phase phase_ = Phase::kIdle;
  Batch input_;
  bool local_ = false;
  int64_t bundle_rows_ = 0;
  std::vector<std::shared_ptr<arrow::RecordBatch>> kept_;  // LOCAL: rows of the next bundle
  int64_t kept_rows_ = 0;

  // The batch's reads and what they found.
  std::vector<int32_t> acc_reads_;
  batch::BinaryRowBuffer accs_;
  std::vector<int32_t> lookup_reads_;  // per lookup: its read (lane 0 of an entry), or -1
  std::vector<int64_t> lookup_values_;
  std::vector<uint8_t> lookup_present_;
  std::vector<int32_t> full_map_reads_;  // per requested whole map: its read
  std::vector<int32_t> full_map_keys_;
  std::vector<int32_t> order_reads_;  // per pending order request: its read
};

}  // namespace streamfusion::operators
