// The two imports build.mjs resolves itself (vitest.config.ts stands in for both in the unit tests).

// `import source from "frame:./frame/x.ts"` gives the IIFE bundle of x.ts as text: a script that runs
// inside a viewer frame (see build.mjs).
declare module "frame:*" {
  const source: string;
  export default source;
}

// `import BUILD_ID from "build:id"`: a hash of this bundle's sources (see build.mjs); "unbuilt" in the
// unit tests (vitest.config.ts).
declare module "build:id" {
  const id: string;
  export default id;
}
