"""The program files are the program: every function and type of schemas queen and queen_internal has its text
in sql/<schema>/<name>.sql, and a database deployed from empty, upgraded from any release, or reverted to any
release and deployed again holds exactly those definitions (sql/README.md)."""
import json
import os
import sys
import uuid

import pytest

from harness import TempDatabase
from harness import env as harness_env

sys.path.insert(0, os.path.join(harness_env.REPO_ROOT, "scripts"))
import sql_program  # noqa: E402  (a script of scripts/, beside the sqitch_release it imports)

# What a definition is, as the catalog holds it: its text, comment, owner and who may execute it.
SNAPSHOT = """
select n.nspname || '.' || p.proname as name,
       pg_get_functiondef(p.oid) || E'\\n-- comment: ' || coalesce(obj_description(p.oid, 'pg_proc'), '(none)')
         || E'\\n-- owner: ' || p.proowner::regrole::text
         || E'\\n-- acl: ' || coalesce((select string_agg(a.grantee::regrole::text || ' ' || a.privilege_type, ', '
                                                         order by a.grantee::regrole::text, a.privilege_type)
                                          from aclexplode(p.proacl) a), '(default)') as definition
  from pg_proc p join pg_namespace n on n.oid = p.pronamespace
 where n.nspname in ('queen', 'queen_internal')
union all
select n.nspname || '.' || t.typname,
       t.typtype::text || ' ' || format_type(t.typbasetype, t.typtypmod) || ' not null ' || t.typnotnull
         || coalesce((select string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' order by a.attnum)
                        from pg_attribute a where a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped), '')
         || coalesce((select string_agg(pg_get_constraintdef(c.oid), ', ' order by c.conname)
                        from pg_constraint c where c.contypid = t.oid), '')
         || ' -- comment: ' || coalesce(obj_description(t.oid, 'pg_type'), '(none)')
         || ' -- owner: ' || t.typowner::regrole::text
  from pg_type t join pg_namespace n on n.oid = t.typnamespace
 where n.nspname in ('queen', 'queen_internal') and t.typtype in ('c', 'd', 'e')
   and (t.typrelid = 0 or (select relkind from pg_class where oid = t.typrelid) = 'c')
"""


def snapshot(target):
    return {row["name"]: row["definition"] for row in target.query(SNAPSHOT)}


def differences(expected, actual):
    lines = [f"missing: {name}" for name in sorted(expected.keys() - actual.keys())]
    lines += [f"not in the program files: {name}" for name in sorted(actual.keys() - expected.keys())]
    lines += [f"differs: {name}" for name in sorted(expected.keys() & actual.keys())
              if expected[name] != actual[name]]
    return lines


@pytest.fixture(scope="module")
def fresh(pg):
    with TempDatabase(pg) as database:
        yield database.target


@pytest.fixture(scope="module")
def fresh_snapshot(fresh):
    return snapshot(fresh)


def test_every_function_and_type_has_one_file_named_after_it(fresh_snapshot):
    files = sql_program.working_tree()
    assert sorted(files) == sorted(fresh_snapshot), differences(dict.fromkeys(files), dict.fromkeys(fresh_snapshot))


def test_the_files_applied_to_a_fresh_database_change_nothing(fresh, fresh_snapshot):
    """Running every file again (as the program change runs them) leaves each definition as it was: the text
    the database holds is the text of the files, and nothing outside them grants or redefines."""
    marker = f"after_{uuid.uuid4().hex[:8]}"
    out = fresh.psql("BEGIN;\n" + sql_program.render(sql_program.working_tree())
                     + f"\nRESET ROLE;\nSELECT '{marker}';\n"
                     + f"SELECT coalesce(json_object_agg(name, definition), '{{}}') FROM ({SNAPSHOT}) s;\nROLLBACK;\n")
    applied = json.loads(out.split(marker, 1)[1].strip())
    assert applied == fresh_snapshot, differences(fresh_snapshot, applied)


@pytest.mark.parametrize("tag", sql_program.release.read_plan().order)
def test_upgrade_from_a_release_and_revert_to_it_end_with_the_files(pg, fresh_snapshot, tag):
    name = f"queen_defs_{uuid.uuid4().hex[:8]}"
    pg.with_db("postgres").execute(f'create database "{name}";')
    try:
        target = pg.with_db(name)
        target.deploy(to=f"@{tag}")
        target.deploy()
        assert snapshot(target) == fresh_snapshot, differences(fresh_snapshot, snapshot(target))
        target.sqitch("revert", "--to", f"@{tag}")
        target.deploy()
        assert snapshot(target) == fresh_snapshot, differences(fresh_snapshot, snapshot(target))
    finally:
        pg.with_db("postgres").execute(f'drop database if exists "{name}" with (force);')
