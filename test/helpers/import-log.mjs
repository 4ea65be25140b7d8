// Registers import-log-hooks.mjs (see there); used as `node --import`.
import { register } from "node:module";

register("./import-log-hooks.mjs", import.meta.url);
