#pragma once
// What of a database error a client may see. libpq renders a server error as
//   "ERROR:  <primary message>\nDETAIL:  ...\nHINT:  ...\nCONTEXT:  PL/pgSQL function ...\n"
// and, with log_parameter_max_length_on_error set, a CONTEXT line echoing the
// statement's parameters ("unnamed portal with parameters: $1 = '...'"), i.e.
// the request data itself. Clients get the primary message alone; the full
// text goes to the log. This is the one place that makes the cut.
#include <string>
#include <string_view>

namespace queen::db {

// The primary message of `server_text`: its first line, without a leading
// severity tag ("ERROR:  ", "FATAL:  ", ...) and surrounding blanks. Never
// empty: "database error" when nothing is left. Pure.
std::string primary_message(std::string_view server_text);

}  // namespace queen::db
