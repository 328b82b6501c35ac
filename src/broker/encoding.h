#pragma once
// JSON text handed to the procedures (push items, ack items), built by
// concatenation so that payloads, already JSON text, are spliced verbatim.
#include <string>
#include <vector>

#include "broker/types.h"

namespace queen::broker {

// One element of push_messages' p_items (docs/procedures.md). The only encoder of
// a push item: the live push, transactions and spool replay all use it, so a
// field added to PushItem reaches the database the same way on every path.
std::string encode_push_item(const PushItem& item);
// The same text appended to `out` (a caller building a whole array in one buffer).
void append_push_item(std::string& out, const PushItem& item);

// push_messages' whole p_items array.
std::string encode_push_items(const std::vector<PushItem>& items);
// Appends the same array to `out`.
void append_push_items(std::string& out, const std::vector<PushItem>& items);

// A JSON array of already-encoded elements.
std::string join_json_array(const std::vector<const std::string*>& elements);

// ack_messages' p_acks: [{transactionId, partitionId, leaseId?, status?, error?}].
std::string encode_ack_items(const std::vector<AckItem>& items);

}  // namespace queen::broker
