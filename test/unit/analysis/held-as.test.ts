/**
 * signals/held-as.ts on hop chains shaped as memleak_holder.py describes them (its `describe`): the container as the
 * program's own code writes it, or nothing where a hop has no spelling.
 */
import { describe, expect, it } from "vitest";
import { heldAs } from "../../../src/analysis/signals/held-as.js";

const hop = (kind: string, name: string) => ({ kind, name });

describe("heldAs: a holder's chain as code", () => {
  it.each([
    ["a module global, without its module", [hop("module global", "__main__.background_tasks")], "background_tasks"],
    ["a package module's global", [hop("module global", "app.handlers.EVENTS")], "EVENTS"],
    [
      "attributes and items",
      [hop("module global", "app.svc"), hop("attribute", "_q"), hop("item", "['jobs']")],
      "svc._q['jobs']",
    ],
    ["a class attribute", [hop("class", "app.models.Registry"), hop("class attribute", "seen")], "Registry.seen"],
    ["a running frame's local", [hop("thread frame", 'thread "MainThread": serve() local pending')], "pending"],
  ])("%s", (_, hops, expected) => {
    expect(heldAs(hops)).toBe(expected);
  });

  it.each([
    ["no chain", undefined],
    ["an empty chain", []],
    ["a set member on the way", [hop("module global", "m.S"), hop("member", "member")]],
    ["a closure cell root", [hop("closure cell", "cell")]],
    ["a reference of no known kind", [hop("module global", "m.x"), hop("reference", "Foo")]],
    ["an item the agent could not write", [hop("module global", "m.x"), hop("item", "[<Foo>]")]],
    ["an item at an unknown index", [hop("module global", "m.x"), hop("item", "[?]")]],
    ["a key cut short", [hop("module global", "m.x"), hop("item", "['aaaaaaaa...]")]],
  ])("%s: none", (_, hops) => {
    expect(heldAs(hops)).toBeUndefined();
  });
});
