/**
 * The documentation's links: every relative link in README.md, CONTRIBUTING.md and docs/*.md names a file that exists,
 * and its #anchor a heading of that file (GitHub's slugs); every page in docs/ is reachable from the README.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../helpers/fixtures.js";

const PAGES = [
  "README.md",
  "CONTRIBUTING.md",
  ...readdirSync(join(REPO, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor for a heading: lower case, punctuation but - and _ dropped, spaces to -. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchors(file: string): Set<string> {
  const text = readFileSync(join(REPO, file), "utf8").replace(/```[\s\S]*?```/g, "");
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

/** [text](target) outside code blocks and code spans; web links are not fetched. */
function links(file: string): string[] {
  const text = readFileSync(join(REPO, file), "utf8")
    .replace(/```[\s\S]*?```/g, "")
    .replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^(https?:|mailto:)/.test(t));
}

describe("documentation links", () => {
  it("the slug of a heading is GitHub's", () => {
    expect(slug("Containers and Kubernetes")).toBe("containers-and-kubernetes");
    expect(slug("`memleak run [options] -- <command> [args…]`")).toBe("memleak-run-options----command-args");
  });

  it.each(PAGES)("%s: every relative link and anchor resolves", (page) => {
    const broken = links(page).filter((target) => {
      const [path, anchor] = target.split("#");
      const file = path ? relative(REPO, join(REPO, dirname(page), path)) : page;
      if (!existsSync(join(REPO, file))) return true;
      return anchor !== undefined && file.endsWith(".md") && !anchors(file).has(anchor);
    });
    expect(broken).toEqual([]);
  });

  it("every page in docs/ is linked from the README", () => {
    const linked = new Set(links("README.md").map((t) => t.split("#")[0]));
    expect(PAGES.filter((p) => p.startsWith("docs/") && !linked.has(p))).toEqual([]);
  });
});
