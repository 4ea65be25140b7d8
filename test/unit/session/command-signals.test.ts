import { describe, expect, it } from "vitest";
import { signalToForward } from "../../../src/session/command-signals.js";

describe("signalToForward: what run's command gets when memleak is signalled", () => {
  it.each<[number, NodeJS.Signals, boolean, NodeJS.Signals | undefined]>([
    // Ctrl-C on a terminal reached the command itself: not sent again
    [1, "SIGINT", true, undefined],
    // a SIGINT from elsewhere (kill -INT, a CI runner) is passed on
    [1, "SIGINT", false, "SIGINT"],
    [1, "SIGTERM", true, "SIGTERM"],
    [1, "SIGTERM", false, "SIGTERM"],
    [1, "SIGHUP", false, "SIGHUP"],
    // a second signal, whatever it is, kills
    [2, "SIGINT", true, "SIGKILL"],
    [2, "SIGTERM", false, "SIGKILL"],
    [3, "SIGHUP", false, "SIGKILL"],
  ])("signal %i: %s, stdin a terminal %s → %s", (nth, signal, tty, expected) => {
    expect(signalToForward(nth, signal, tty)).toBe(expected);
  });
});
