import { defineConfig } from "vitest/config";

export default defineConfig({
  // `import source from "frame:./x.ts"` is the text of a script build.mjs bundles for a viewer frame;
  // the unit tests run no frame's scripts, so it is empty here (tests/js plays the frame's messages).
  plugins: [
    {
      name: "frame-text",
      resolveId: (id: string) => (id.startsWith("frame:") ? `\0${id}` : null),
      load: (id: string) => (id.startsWith("\0frame:") ? 'export default "";' : null),
    },
  ],
  test: {
    include: ["tests/js/**/*.test.ts"],
    environment: "node",
  },
});
