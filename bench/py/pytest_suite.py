"""Writes the pytest suite the plugin's benchmark runs (bench/sections/pytest-plugin.mjs) into a directory: N tests,
each doing a little of what unit tests do (build a dict, a JSON round trip, sort), about a millisecond. BENCH_CALLS
(default 1) loops each test's body that many times: pytest alone then does the work `memleak pytest --repeat`
does, so the two can be compared."""
import os
import sys

TEST = '''
def test_{i}():
    for _ in range(CALLS):
        doc = {{"items": [{{"id": k, "name": "item %d" % k}} for k in range(200)]}}
        assert json.loads(json.dumps(doc)) == doc
        assert sorted(range(500, 0, -1))[0] == 1
'''

# The CPU the session took (all its threads: memleak's agent thread included), from its start to its summary:
# unlike the wall time, it does not count what the other processes of a busy machine took meanwhile.
CONFTEST = '''
import time

_START = []


def pytest_sessionstart(session):
    _START.append(time.process_time())


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line("BENCH_CPU_SECONDS=%.4f" % (time.process_time() - _START[0]))
'''


def main(directory, tests):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "pytest.ini"), "w") as f:
        f.write("[pytest]\naddopts = -p no:cacheprovider\n")
    with open(os.path.join(directory, "conftest.py"), "w") as f:
        f.write(CONFTEST)
    per_file = 50
    for n in range(0, tests, per_file):
        with open(os.path.join(directory, "test_bench_%03d.py" % (n // per_file)), "w") as f:
            f.write("import json\nimport os\n\nCALLS = int(os.environ.get('BENCH_CALLS', '1'))\n")
            for i in range(n, min(tests, n + per_file)):
                f.write(TEST.format(i=i))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
