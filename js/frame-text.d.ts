// `import source from "frame:./x.ts"` gives the IIFE bundle of x.ts as text (see build.mjs).
declare module "frame:*" {
  const source: string;
  export default source;
}
