// The prepared statements of message administration: traces, the message
// list/detail/delete, queue clearing, partitions and the DLQ requeue/delete
// (docs/procedures.md). jsonb answers travel as text; from/to as epoch milliseconds.
#include <pqxx/connection_base>

#include "db/statements.h"

namespace queen::db {

void register_message_admin_statements(pqxx::connection_base& c) {
  using namespace statement;
  c.prepare(kRecordTrace,
            "SELECT queen.record_trace($1::uuid, $2::text, $3::jsonb, "
            "ARRAY(SELECT jsonb_array_elements_text($4::jsonb)), $5::text, $6::text, $7::text, $8::text)::text "
            "AS trace_id");
  c.prepare(kMessageTraces, "SELECT queen.message_traces_of($1::uuid, $2::text, $3::text)::text AS result_json");
  // One row per trace (none: one row with a null trace), the envelope on every row,
  // the message payload apart from the trace (the broker decrypts it).
  c.prepare(kTracesByName,
            "SELECT (r - 'traces')::text AS envelope_json, "
            "(e.t - 'message_payload' - 'message_encrypted')::text AS fields_json, "
            "(e.t -> 'message_payload')::text AS payload, (e.t ->> 'message_encrypted')::bool AS is_encrypted "
            "FROM queen.traces_by_name($1::text, $2::int, $3::int, $4::text, $5::int8) r "
            "LEFT JOIN LATERAL jsonb_array_elements(r -> 'traces') WITH ORDINALITY AS e(t, ord) ON true "
            "ORDER BY e.ord");
  c.prepare(kTraceNames, "SELECT queen.trace_names($1::int, $2::int, $3::text)::text AS result_json");
  c.prepare(kListMessages,
            "SELECT queen.list_messages($1::text, $2::text, $3::text, $4::text, $5::text, "
            "'epoch'::timestamptz + $6::int8 * interval '1 millisecond', "
            "'epoch'::timestamptz + $7::int8 * interval '1 millisecond', $8::int, $9::int, $10::text)::text "
            "AS result_json");
  c.prepare(kGetMessage,
            "SELECT (r - 'payload')::text AS fields_json, (r -> 'payload')::text AS payload, "
            "(r ->> 'isEncrypted')::bool AS is_encrypted FROM queen.get_message($1::uuid, $2::text, $3::text) r "
            "WHERE r IS NOT NULL");
  c.prepare(kDeleteMessage, "SELECT queen.delete_message($1::uuid, $2::text, $3::text) AS found");
  c.prepare(kClearQueue, "SELECT queen.clear_queue($1::text, $2::text, $3::text) AS deleted");
  c.prepare(kListPartitions,
            "SELECT queen.list_partitions($1::text, $2::int, $3::int, $4::text)::text AS result_json");
  c.prepare(kDeadLetterMessage,
            "SELECT queen.dead_letter_message($1::uuid, $2::text, coalesce($3::text, '__QUEUE_MODE__'), "
            "coalesce($4::text, 'Moved to the DLQ by an operator'), $5::text) AS found");
  c.prepare(kRequeueDeadLetters,
            "SELECT queen.requeue_dead_letters($1::text, $2::text, $3::text, "
            "'epoch'::timestamptz + $4::int8 * interval '1 millisecond', "
            "'epoch'::timestamptz + $5::int8 * interval '1 millisecond', $6::uuid, $7::text)::text AS result_json");
  c.prepare(kDeleteDeadLetters,
            "SELECT queen.delete_dead_letters($1::text, $2::text, $3::text, "
            "'epoch'::timestamptz + $4::int8 * interval '1 millisecond', "
            "'epoch'::timestamptz + $5::int8 * interval '1 millisecond', $6::uuid, $7::text) AS deleted");
  c.prepare(kRetryDeadMessage,
            "SELECT queen.retry_dead_message($1::uuid, $2::text, $3::text)::text AS result_json");
}

}  // namespace queen::db
