/**
 * The folder order of src/ (CONTRIBUTING.md, "Development"), checked by dependency-cruiser in `npm test`: a folder
 * imports only the folders below it in LAYERS, never one above (types included: a type import ties the folders just
 * as much), and no module takes part in an import cycle. Run `npx depcruise src` to see what breaks it.
 */
"use strict";

/** Top to bottom. Folders on one line are peers: neither imports the other. */
const LAYERS = [
  ["cli"], // src/cli.ts and src/cli/
  ["commands"],
  ["session"],
  ["recording"],
  ["export", "prometheus"],
  ["gates"],
  ["report"],
  ["trial"],
  ["advice"],
  ["analysis"],
  ["series"],
  ["agent"],
  ["native"],
  ["sampling"],
  ["system"],
  ["probes"],
  ["base"],
];

/** A path pattern for the given folders of src/ (src/cli.ts counts as cli). */
const folders = (names) => `^src/(${names.join("|")})(/|\\.ts$)`;

const layerRules = LAYERS.flatMap((layer, i) => {
  const above = LAYERS.slice(0, i).flat();
  const peers = layer.length > 1 ? layer : [];
  return [
    ...(above.length > 0
      ? [
          {
            name: `${layer.join("-")}-not-up`,
            comment: `src/${layer.join(", src/")} import only what lies below them (CONTRIBUTING.md's order)`,
            severity: "error",
            from: { path: folders(layer) },
            to: { path: folders(above) },
          },
        ]
      : []),
    ...peers.map((name) => ({
      name: `${name}-not-sideways`,
      comment: `src/${name} does not import its peers on the same line of the order`,
      severity: "error",
      from: { path: folders([name]) },
      to: { path: folders(peers.filter((p) => p !== name)) },
    })),
  ];
});

const known = LAYERS.flat();

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "folder-in-the-order",
      comment: "every folder of src/ has its place in LAYERS (and CONTRIBUTING.md's list): add a new one to both",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^src/", pathNot: folders(known) },
    },
    {
      name: "folder-in-the-order-importing",
      comment: "a folder of src/ with no place in LAYERS that imports from src/: the same rule, from its side",
      severity: "error",
      from: { path: "^src/", pathNot: folders(known) },
      to: { path: "^src/" },
    },
    {
      name: "no-circular",
      comment: "an import cycle between modules: split out what both need",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "src-not-into-tests",
      comment: "the product does not load test helpers, benchmarks or scripts",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench|scripts)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
