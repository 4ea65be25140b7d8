/**
 * watch's job scope (issue 48 item 6): a tree of one session and one user is one job; one that spans several (PID 1's
 * on a host) is refused before any agent goes in, unless --all. On captured trees (fixtures/README.md) and stat lines.
 */
import { describe, expect, it } from "vitest";
import { HostFs } from "../../../src/system/host-fs.js";
import {
  checkJobScope,
  outsideJob,
  parseSessionOf,
  readJobFacts,
  scopeRefusal,
  type JobFacts,
} from "../../../src/agent/attach/job-scope.js";
import { REPO } from "../../helpers/fixtures.js";

const twoJobs = new HostFs(`${REPO}fixtures/trees/two-jobs`);
const oneJob = new HostFs(`${REPO}fixtures/trees/hybrid-v1`);

describe("the session and the user of a process", () => {
  it("session is stat's field 6, read after the last ')' of the name", () => {
    expect(parseSessionOf("6954 (sleep) S 6870 6954 6954 0 -1 4194304 74 0")).toEqual({ comm: "sleep", session: 6954 });
    expect(parseSessionOf("77 (a) b (c) S 1 77 12 0 -1")).toEqual({ comm: "a) b (c", session: 12 });
    expect(parseSessionOf("77 (python3")).toBeUndefined();
    expect(parseSessionOf("77 (x) S 1 2")).toBeUndefined();
  });
  it("read from a captured tree: the uid is status's real one (nobody's sleep), none when the process is not there", () => {
    expect(readJobFacts(twoJobs, 6870)).toEqual({ pid: 6870, comm: "python3", session: 16369, uid: 0 });
    expect(readJobFacts(twoJobs, 6955)).toEqual({ pid: 6955, comm: "sleep", session: 16369, uid: 65534 });
    expect(readJobFacts(twoJobs, 1)).toBeUndefined();
  });
});

describe("one job or not", () => {
  const root: JobFacts = { pid: 10, comm: "python3", session: 5, uid: 1000 };
  it("the same session and user is inside; another of either is outside, said as which", () => {
    expect(outsideJob(root, { pid: 11, comm: "python3", session: 5, uid: 1000 })).toBeUndefined();
    expect(outsideJob(root, { pid: 12, comm: "python3", session: 6, uid: 1000 })).toBe("another session than PID 10's");
    expect(outsideJob(root, { pid: 13, comm: "python3", session: 5, uid: 0 })).toBe("another user than PID 10's");
    // What could not be read does not count against it.
    expect(outsideJob(root, { pid: 14, comm: "python3", session: undefined, uid: undefined })).toBeUndefined();
  });

  it("a captured one-job tree (a parent and two forked children) is not refused", () => {
    expect(checkJobScope(oneJob, 5932)).toBeUndefined();
  });

  it("a captured tree with another session and another user is refused, saying what it would touch and the ways on", () => {
    expect(checkJobScope(twoJobs, 6870)).toBe(
      [
        "PID 6870 (python3) and its descendants are not one job: 4 processes in 2 sessions, owned by 2 users",
        "  (2 processes outside PID 6870's session or user, such as 6954 (sleep), 6955 (sleep)).",
        "  watch would load its agent into every Python among them. Give the PID of one job's process, or:",
        "  --no-inject  read /proc and the cgroup only, no agent anywhere",
        "  --all        load the agent into every Python of this tree, whoever started it",
      ].join("\n"),
    );
  });

  it("a child of the tree that is its own job is refused from there only when it has others below it", () => {
    expect(checkJobScope(twoJobs, 6954)).toBeUndefined();
    expect(checkJobScope(twoJobs, 6953)).toBeUndefined();
  });

  it("one process outside: singular words", () => {
    const text = scopeRefusal(root, [root, { pid: 12, comm: "cron", session: 6, uid: 1000 }])!;
    expect(text).toMatch(
      /^PID 10 \(python3\) and its descendants are not one job: 2 processes in 2 sessions, owned by 1 user\n/,
    );
    expect(text).toContain("(1 process outside PID 10's session or user, such as 12 (cron)).");
  });
});
