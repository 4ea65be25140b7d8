/** Written by `npm run calibrate` (bench/calibrate.mjs, test/helpers/calibration-fit.ts): do not edit by hand. */
import type { CalibrationTable } from "./calibration-types.js";

export const CALIBRATION: CalibrationTable = {
  fittedOn:
    "56 recordings of 47 programs, cut every 3 s (fixtures/recordings, fixtures/calibration/recordings), verdicts of 13a829f2",
  check: {
    verdicts: 374,
    programs: 47,
    rawBrier: 0.1205,
    calibratedBrier: 0.1275,
  },
  families: {},
  saidRaw: {
    "cgroup-artefact": "28 verdicts of 3 programs: too few to fit",
    fragmentation: "out of sample its curve said it no better than the raw score (Brier 0.1636 against 0.14)",
    leak: "out of sample its curve said it no better than the raw score (Brier 0.0927 against 0.0875)",
    "leak/early": "out of sample its curve said it no better than the raw score (Brier 0.197 against 0.1837)",
    cow: "its curve passed its own check, but the method as a whole said verdicts of programs it had not seen worse than the raw scores (Brier 0.1275 against 0.1205)",
    plateau:
      "its curve passed its own check, but the method as a whole said verdicts of programs it had not seen worse than the raw scores (Brier 0.1275 against 0.1205)",
    stable:
      "its curve passed its own check, but the method as a whole said verdicts of programs it had not seen worse than the raw scores (Brier 0.1275 against 0.1205)",
  },
};
