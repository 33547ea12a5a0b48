// `import BUILD_ID from "build:id"`: a hash of this bundle's sources (see build.mjs); "unbuilt" in the
// unit tests (vitest.config.ts).
declare module "build:id" {
  const id: string;
  export default id;
}
