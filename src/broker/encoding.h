#pragma once
// JSON text handed to the procedures (push items, ack items), built by
// concatenation so that payloads, already JSON text, are spliced verbatim.
#include <string>
#include <vector>

#include "broker/types.h"

namespace queen::broker {

// One element of push_messages' p_items (procedures.md).
std::string encode_push_item(const PushItem& item);

// A JSON array of already-encoded elements.
std::string join_json_array(const std::vector<const std::string*>& elements);

// ack_messages' p_acks: [{transactionId, partitionId, leaseId?, status?, error?}].
std::string encode_ack_items(const std::vector<AckItem>& items);

}  // namespace queen::broker
