import { defineConfig } from "vitest/config";

export default defineConfig({
  // `import source from "frame:./x.ts"` is the text of a script build.mjs bundles for a viewer frame;
  // the unit tests run no frame's scripts, so it is empty here (tests/js plays the frame's messages).
  // `import BUILD_ID from "build:id"` (build.mjs: a hash of the sources) is "unbuilt" here.
  plugins: [
    {
      name: "frame-text",
      resolveId: (id: string) => (id.startsWith("frame:") || id === "build:id" ? `\0${id}` : null),
      load: (id: string) => (id.startsWith("\0frame:") ? 'export default "";' : id === "\0build:id" ? 'export default "unbuilt";' : null),
    },
  ],
  test: {
    include: ["tests/js/**/*.test.ts"],
    environment: "node",
  },
});
