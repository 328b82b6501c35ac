"""The procedure catalogue (src/db/catalogue.h) against a freshly deployed schema.

Every entry is prepared as the broker prepares it, its argument types are those of the procedure in
pg_proc (the broker may leave out trailing parameters with defaults), and so are the return type (scalar results) or the result columns it reads (table results).
Every function of schema queen is named by an entry or is a DBA's procedure (sql_admin_procedures), and that
list names functions that exist; the functions of queen_internal are the helpers, one file each
(sql/queen_internal, tests/schema). The broker's role, queen_broker, executes exactly the entries (the GRANT
lines of their files under sql/queen).
"""
import json
import subprocess

import pytest

from harness import TempDatabase
from harness import env as harness_env


@pytest.fixture(scope="module")
def catalogue():
    out = subprocess.run([harness_env.broker_binary(), "--catalogue"], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    return json.loads(out)


@pytest.fixture(scope="module")
def schema(pg):
    with TempDatabase(pg) as database:
        yield database.target


@pytest.fixture(scope="module")
def functions(schema):
    """queen.<name> -> its input argument types, return type, set-returning flag and table columns."""
    rows = schema.query("""
        select p.proname as name,
               coalesce((select json_agg(format_type(t, null) order by i)
                         from unnest(p.proargtypes::oid[]) with ordinality as a(t, i)), '[]'::json) as args,
               p.pronargdefaults as defaults,
               format_type(p.prorettype, null) as returns,
               p.proretset as retset,
               coalesce((select json_agg(json_build_object('name', n, 'type', format_type(t, null)) order by i)
                         from unnest(p.proallargtypes, p.proargmodes::text[], p.proargnames)
                              with ordinality as o(t, m, n, i)
                         where m in ('o', 't', 'b')),
                        -- a procedure returning (setof) a composite type: its attributes
                        (select json_agg(json_build_object('name', a.attname,
                                                           'type', format_type(a.atttypid, null)) order by a.attnum)
                         from pg_type rt join pg_attribute a on a.attrelid = rt.typrelid
                         where rt.oid = p.prorettype and rt.typrelid <> 0 and a.attnum > 0 and not a.attisdropped),
                        '[]'::json) as columns
        from pg_proc p join pg_namespace s on s.oid = p.pronamespace
        where s.nspname = 'queen' and p.prokind = 'f'
    """)
    by_name = {}
    for row in rows:
        assert row["name"] not in by_name, f"queen.{row['name']} is overloaded: the catalogue names one signature"
        by_name[row["name"]] = row
    return by_name


def test_every_entry_names_a_procedure_with_its_argument_types(catalogue, functions):
    problems = []
    for entry in catalogue["entries"]:
        fn = functions.get(entry["function"])
        if fn is None:
            problems.append(f"{entry['function']}: no such function in the queen schema")
        elif fn["args"][:len(entry["args"])] != entry["args"] or \
                len(fn["args"]) - len(entry["args"]) > fn["defaults"]:
            # The broker may leave out trailing parameters that have defaults (p_now, for tests).
            problems.append(f"{entry['function']}: arguments {entry['args']}, the schema has {fn['args']} "
                            f"({fn['defaults']} with defaults)")
    assert problems == []


def test_every_result_is_read_with_the_types_the_procedure_returns(catalogue, functions):
    problems = []
    for entry in catalogue["entries"]:
        fn = functions.get(entry["function"])
        if fn is None:
            continue  # reported by the test above
        if entry["returns"] is not None:
            if fn["returns"] != entry["returns"]:
                problems.append(f"{entry['function']}: reads a {entry['returns']}, the schema returns {fn['returns']}")
        else:
            declared = {c["name"]: c["type"] for c in fn["columns"]}
            for column in entry["columns"]:
                if column["name"] not in declared:
                    problems.append(f"{entry['function']}: no result column {column['name']}")
                elif declared[column["name"]] != column["type"]:
                    problems.append(f"{entry['function']}.{column['name']}: read as {column['type']}, "
                                    f"the schema has {declared[column['name']]}")
    assert problems == []


def test_every_statement_prepares(catalogue, schema):
    statements = "\n".join(f"prepare {e['statement']} as {e['sql']};" for e in catalogue["entries"])
    schema.execute(statements)  # raises (naming the statement) on the first that does not prepare


def test_every_function_of_queen_is_an_entry_or_an_admin_procedure(catalogue, functions):
    named = {e["function"] for e in catalogue["entries"]}
    admin = set(catalogue["admin_procedures"])
    assert sorted(named & admin) == [], "an entry is also listed as an admin procedure"
    assert sorted(set(functions) - named - admin) == [], \
        "functions of queen no entry names (add an entry, list it in sql_admin_procedures, or move it to queen_internal)"
    assert sorted(admin - set(functions)) == [], "admin procedures schema queen does not have"


def test_the_broker_role_executes_exactly_the_entries(catalogue, schema):
    executable = {r["name"] for r in schema.query("""
        select s.nspname || '.' || p.proname as name from pg_proc p join pg_namespace s on s.oid = p.pronamespace
        where s.nspname in ('queen', 'queen_internal') and has_function_privilege('queen_broker', p.oid, 'EXECUTE')""")}
    assert executable == {"queen." + e["function"] for e in catalogue["entries"]}


def test_each_procedure_has_one_entry(catalogue):
    names = [e["function"] for e in catalogue["entries"]]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []
