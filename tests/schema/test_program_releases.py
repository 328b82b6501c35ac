"""scripts/sql_program.py across a release, on a scratch git repository with a sqitch project of its own: the
program change is written from the files, reworked by the first edit after a release (the released scripts kept
as they were), and deploying and reverting it moves a real database between the two releases' functions."""
import os
import shutil
import subprocess
import uuid

import pytest

from harness import env as harness_env

SCRIPTS = os.path.join(harness_env.REPO_ROOT, "scripts")
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@queen.local", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@queen.local", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
SQITCH_CONF = "[core]\n\tengine = pg\n\ttop_dir = migrations\n[user]\n\tname = t\n\temail = t@queen.local\n"


def function(schema, name, body, returns="text", args=""):
    return (f"CREATE OR REPLACE FUNCTION {schema}.{name}({args})\n RETURNS {returns}\n"
            f" LANGUAGE sql IMMUTABLE AS $function$ {body} $function$;\n\n"
            f"COMMENT ON FUNCTION {schema}.{name}({args}) IS '{name}';\n"
            + (f"GRANT EXECUTE ON FUNCTION {schema}.{name}({args}) TO queen_reader;\n" if schema == "queen" else ""))


class Project:
    def __init__(self, root, target):
        self.root, self.target = root, target

    def run(self, *cmd, check=True):
        proc = subprocess.run(list(cmd), cwd=self.root, capture_output=True, text=True,
                              env=dict(os.environ, QUEEN_REPO_ROOT=self.root, **GIT_ENV))
        if check:
            assert proc.returncode == 0, f"{cmd}: {proc.stdout}{proc.stderr}"
        return proc

    def write(self, relative, text):
        os.makedirs(os.path.dirname(os.path.join(self.root, relative)), exist_ok=True)
        with open(os.path.join(self.root, relative), "w") as fh:
            fh.write(text)

    def read(self, relative):
        with open(os.path.join(self.root, relative)) as fh:
            return fh.read()

    def commit(self, message):
        self.run("git", "add", "-A")
        self.run("git", "commit", "-q", "-m", message)

    def program(self, command):
        return self.run(os.path.join(SCRIPTS, "sql_program.py"), command, check=False)

    def sqitch(self, *args):
        return self.run("sqitch", *args, self.target.url())


@pytest.fixture
def project(pg):
    name = f"queen_prog_{uuid.uuid4().hex[:8]}"
    pg.with_db("postgres").execute(f'create database "{name}";')
    root = os.path.join(harness_env.new_tmp_dir("sql-program"), "repo")
    os.makedirs(root)
    p = Project(root, pg.with_db(name))
    p.run("git", "init", "-q", "-b", "main")
    p.write("sqitch.conf", SQITCH_CONF)
    p.write("migrations/sqitch.plan", "%syntax-version=1.0.0\n%project=toy\n\n")
    p.run("sqitch", "add", "schema", "-n", "the schemas")
    p.write("migrations/deploy/schema.sql",
            "CREATE SCHEMA queen AUTHORIZATION queen_owner;\nCREATE SCHEMA queen_internal AUTHORIZATION queen_owner;\n"
            "GRANT USAGE ON SCHEMA queen TO queen_reader;\n")
    p.write("migrations/revert/schema.sql", "DROP SCHEMA queen CASCADE;\nDROP SCHEMA queen_internal CASCADE;\n")
    p.write("migrations/verify/schema.sql", "SELECT 'queen'::regnamespace;\n")
    p.commit("schemas")
    p.run("sqitch", "tag", "v1.0.0", "-n", "first release")
    p.commit("release 1.0.0")
    p.run("git", "tag", "v1.0.0")
    p.run("sqitch", "add", "program", "-n", "the program")
    p.write("sql/queen/greet.sql", function("queen", "greet", "SELECT 'v1'::text"))
    p.write("sql/queen/answer.sql", function("queen", "answer", "SELECT 42", returns="integer"))
    p.write("sql/queen_internal/helper.sql", function("queen_internal", "helper", "SELECT 'helper'::text"))
    assert p.program("generate").returncode == 0
    p.commit("the program")
    yield p
    pg.with_db("postgres").execute(f'drop database if exists "{name}" with (force);')
    shutil.rmtree(root, ignore_errors=True)


def definitions(target):
    return {r["name"]: r["result"] for r in target.query(
        "select p.proname as name, pg_get_function_result(p.oid) as result from pg_proc p "
        "where p.pronamespace in ('queen'::regnamespace, 'queen_internal'::regnamespace)")}


def test_an_edit_after_a_release_reworks_the_program_and_moves_a_database_both_ways(project):
    p = project
    assert p.program("check").returncode == 0
    p.sqitch("deploy", "--verify")
    assert p.target.scalar("select queen.greet()") == "v1"
    assert definitions(p.target) == {"greet": "text", "answer": "integer", "helper": "text"}
    assert p.target.scalar("select has_function_privilege('queen_reader', 'queen.greet()', 'execute')") is True

    p.run("sqitch", "tag", "v1.1.0", "-n", "second release")
    p.commit("release 1.1.0")
    p.run("git", "tag", "v1.1.0")
    released = {kind: p.read(f"migrations/{kind}/program.sql") for kind in ("deploy", "revert", "verify")}
    assert p.program("check").returncode == 0, "a release changes nothing the files make"

    # The next release: an edited body, a changed result type, a removed helper, a new procedure without grants.
    p.write("sql/queen/greet.sql", function("queen", "greet", "SELECT 'v2'::text"))
    p.write("sql/queen/answer.sql", function("queen", "answer", "SELECT '42'::text"))
    os.remove(os.path.join(p.root, "sql/queen_internal/helper.sql"))
    p.write("sql/queen/added.sql", function("queen", "added", "SELECT 1", returns="integer").split("GRANT")[0])
    assert p.program("check").returncode == 1, "the files changed: the scripts are stale"
    assert p.program("generate").returncode == 0
    assert p.program("check").returncode == 0
    plan = p.read("migrations/sqitch.plan")
    assert plan.count("\nprogram ") == 2 and "program [program@v1.1.0]" in plan, plan
    for kind, text in released.items():
        assert p.read(f"migrations/{kind}/program@v1.1.0.sql") == text, f"the released {kind} script was kept"
    p.commit("the next program")
    check = p.run(os.path.join(SCRIPTS, "sqitch_release.py"), "check-tagged", check=False)
    assert check.returncode == 0, check.stderr

    p.sqitch("deploy", "--verify")
    assert p.target.scalar("select queen.greet()") == "v2"
    assert definitions(p.target) == {"greet": "text", "answer": "text", "added": "integer"}
    assert p.target.scalar("select has_function_privilege('queen_reader', 'queen.added()', 'execute')") is False

    p.sqitch("revert", "-y", "--to", "@v1.1.0")
    assert p.target.scalar("select queen.greet()") == "v1"
    assert definitions(p.target) == {"greet": "text", "answer": "integer", "helper": "text"}
    p.sqitch("deploy")
    assert definitions(p.target) == {"greet": "text", "answer": "text", "added": "integer"}


def test_a_file_must_define_the_function_it_is_named_after(project):
    project.write("sql/queen/greet.sql", function("queen", "welcome", "SELECT 'v1'::text"))
    result = project.program("check")
    assert result.returncode == 1 and "sql/queen/greet.sql: defines queen.welcome" in result.stderr, result.stderr


def add_table_change(p, name, requires):
    p.run("sqitch", "add", name, "--requires", requires, "-n", f"the table {name}")
    p.write(f"migrations/deploy/{name}.sql", f"CREATE TABLE queen.{name} (id int);\n")
    p.write(f"migrations/revert/{name}.sql", f"DROP TABLE queen.{name};\n")
    p.write(f"migrations/verify/{name}.sql", f"SELECT 'queen.{name}'::regclass;\n")


def last_change(p):
    lines = [line for line in p.read("migrations/sqitch.plan").splitlines()
             if line and not line.startswith(("%", "#", "@"))]
    return lines[-1].split()[0]


def test_the_program_deploys_after_the_migrations_of_its_release(project):
    """sqitch commits change by change under running brokers: the tables a release's functions read exist before
    the functions do, so a migration added after an unreleased program moves before it, and one added after a
    released program makes the next program a rework that follows it."""
    p = project
    add_table_change(p, "widgets", "schema")
    check = p.program("check")
    assert check.returncode == 1 and "widgets come after program" in check.stderr, check.stderr
    assert p.program("generate").returncode == 0
    assert last_change(p) == "program" and p.program("check").returncode == 0
    p.sqitch("deploy", "--verify")
    p.commit("widgets before the program")

    p.run("sqitch", "tag", "v1.1.0", "-n", "second release")
    p.commit("release 1.1.0")
    p.run("git", "tag", "v1.1.0")
    add_table_change(p, "gadgets", "widgets")
    assert p.program("check").returncode == 1
    assert p.program("generate").returncode == 0
    plan = p.read("migrations/sqitch.plan")
    assert last_change(p) == "program" and plan.count("\nprogram ") == 2, plan
    assert p.program("check").returncode == 0
    p.commit("gadgets, then the next program")
    p.sqitch("deploy", "--verify")
    assert p.target.scalar("select to_regclass('queen.gadgets') is not null") is True

    add_table_change(p, "gizmos", "program")
    generate = p.program("generate")
    assert generate.returncode == 1 and "gizmos requires program" in generate.stderr, generate.stderr


def test_the_release_step_commits_with_the_program_and_leaves_with_its_release(project):
    """migrations/program_step: what the release's functions need of the data, in the program's transaction (a
    broker never runs a function against the other layout); released with the program, then gone from the tree."""
    p = project
    p.write("migrations/program_step/deploy.sql", "CREATE TABLE IF NOT EXISTS queen.widgets (id int);\n"
                                                  "INSERT INTO queen.widgets SELECT 1 WHERE NOT EXISTS (SELECT FROM queen.widgets);\n")
    p.write("migrations/program_step/revert.sql", "DROP TABLE IF EXISTS queen.widgets;\n")
    p.write("sql/queen/widgets.sql", function("queen", "widgets", "SELECT count(*) FROM queen.widgets", returns="bigint"))
    assert p.program("check").returncode == 1, "a step is part of what the program's scripts are made of"
    assert p.program("generate").returncode == 0
    deploy = p.read("migrations/deploy/program.sql")
    assert deploy.index("CREATE TABLE IF NOT EXISTS queen.widgets") < deploy.index("FUNCTION queen.widgets")
    assert deploy.count("BEGIN;") == 1 and deploy.count("COMMIT;") == 1, "one transaction"
    p.sqitch("deploy", "--verify")
    assert p.target.scalar("select queen.widgets()") == 1
    p.target.psql(p.read("migrations/deploy/program.sql"))
    assert p.target.scalar("select queen.widgets()") == 1, "applied again (make db), the step changes nothing"
    p.sqitch("revert", "-y", "--to", "@v1.0.0")
    assert p.target.scalar("select to_regclass('queen.widgets') is null") is True
    p.commit("a program with a step")

    p.run("sqitch", "tag", "v1.1.0", "-n", "second release")
    p.commit("release 1.1.0")
    p.run("git", "tag", "v1.1.0")
    p.write("sql/queen/greet.sql", function("queen", "greet", "SELECT 'v2'::text"))
    assert p.program("generate").returncode == 0
    assert not os.path.exists(os.path.join(p.root, "migrations/program_step/deploy.sql"))
    assert "queen.widgets (id int)" in p.read("migrations/deploy/program@v1.1.0.sql")
    assert "queen.widgets (id int)" not in p.read("migrations/deploy/program.sql")
    p.commit("the next program")
    p.sqitch("deploy", "--verify")
    assert (p.target.scalar("select queen.widgets()"), p.target.scalar("select queen.greet()")) == (1, "v2")
