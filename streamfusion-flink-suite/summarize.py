"""Summarizes ./sf flink-suite: Flink's ITCases on stock Flink and with StreamFusion installed.

Reads the surefire XML reports of both runs (target/suite-stock, target/suite-native) and the
native run's evidence file, prints per test class run/failed/skipped for both, every test that
fails only with StreamFusion, and how much of the native run was native. The last line is the
plain summary "flink-suite: N passed, M failed, K skipped" of the native run, where a failure is
a test that fails with StreamFusion but not on stock Flink.
"""

import collections
import glob
import os
import sys
import xml.etree.ElementTree as ET


def results(directory):
    """{class: {test: status}} with status in passed, failed, skipped."""
    out = collections.defaultdict(dict)
    for path in sorted(glob.glob(os.path.join(directory, "TEST-*.xml"))):
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError:
            continue
        suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
        for suite in suites:
            for case in suite.findall("testcase"):
                cls = case.get("classname") or suite.get("name")
                name = case.get("name")
                if case.find("skipped") is not None:
                    status = "skipped"
                elif case.find("failure") is not None or case.find("error") is not None:
                    status = "failed"
                else:
                    status = "passed"
                out[cls][name] = status
    return out


def counts(tests):
    c = collections.Counter(tests.values())
    return c["passed"] + c["failed"] + c["skipped"], c["failed"], c["skipped"]


def main(target):
    stock = results(os.path.join(target, "suite-stock"))
    native = results(os.path.join(target, "suite-native"))
    classes = sorted(set(stock) | set(native))
    print(f"{'test class':60} {'stock run/fail/skip':>20} {'native run/fail/skip':>21}")
    only_native = []
    for cls in classes:
        s, n = stock.get(cls, {}), native.get(cls, {})
        print(f"{cls.rsplit('.', 1)[-1]:60} {'%d/%d/%d' % counts(s):>20} {'%d/%d/%d' % counts(n):>21}")
        for test, status in sorted(n.items()):
            if status == "failed" and s.get(test) != "failed":
                only_native.append(f"{cls}#{test}")
    print()
    print(f"failing only with StreamFusion: {len(only_native)}")
    for test in only_native:
        print("  " + test)
    plans = natives = 0
    jobs, operators = set(), 0
    evidence = os.path.join(target, "suite-native", "evidence.txt")
    if os.path.exists(evidence):
        with open(evidence, encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split()
                if parts[:1] == ["plan"] and len(parts) >= 3:
                    plans += 1
                    natives += int(parts[1]) > 0
                elif parts[:1] == ["open"] and len(parts) >= 2:
                    jobs.add(parts[1])
                    operators += 1
    print()
    print(f"native evidence: {natives} of {plans} planned jobs had a native operator; "
          f"{operators} native operator subtasks ran in {len(jobs)} jobs")
    passed = sum(list(t.values()).count("passed") for t in native.values())
    skipped = sum(list(t.values()).count("skipped") for t in native.values())
    both = sum(1 for cls, t in native.items() for test, status in t.items()
               if status == "failed" and stock.get(cls, {}).get(test) == "failed")
    failed = len(only_native)
    if both:
        print(f"failing on stock Flink too (not counted below): {both}")
    if not native:
        print("no test ran with StreamFusion")
        failed = max(failed, 1)
    print()
    print(f"flink-suite: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
