/** schema/verdict.schema.json compiled as the tests check documents against it (strict, every error listed). */
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { REPO } from "./fixtures.js";

export function verdictValidator() {
  const schema = JSON.parse(readFileSync(`${REPO}schema/verdict.schema.json`, "utf8")) as object;
  return new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true }).compile(schema);
}
