/** pyenv's interpreters on this machine, for tests that run the agent's Python under several versions. */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";

/**
 * pyenv's newest 3.N build for each of `minors` that this machine has (bin/python3 of `<root>/versions/3.N.x`), in that
 * order; none without pyenv. The machine guide lists 3.8–3.13 beside 3.11.
 */
export function pyenvPythons(minors: readonly number[]): string[] {
  let root = "";
  try {
    root = execFileSync("pyenv", ["root"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return [];
  }
  const versions = existsSync(`${root}/versions`) ? readdirSync(`${root}/versions`) : [];
  return minors.flatMap((minor) => {
    const newest = versions
      .filter((v) => v.startsWith(`3.${minor}.`))
      .sort((a, b) => Number(a.split(".")[2]) - Number(b.split(".")[2]))
      .pop();
    const python = newest && `${root}/versions/${newest}/bin/python3`;
    return python && existsSync(python) ? [python] : [];
  });
}
