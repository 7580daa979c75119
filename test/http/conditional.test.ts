import { describe, expect, test } from "bun:test";
import { ApiError } from "../../src/errors";
import { ifMatchAllows, ifMatchTags } from "../../src/http/conditional";

const etag = '"0123456789abcdef0123456789abcdef"';

describe("ifMatchTags and ifMatchAllows", () => {
  test.each([
    [null, true],
    ["*", true],
    [etag, true],
    [`"x", ${etag}`, true],
    [`W/${etag}`, false],
    ['"x"', false],
    ['""', false],
  ])("%j allows the change: %p", (header, allowed) => {
    expect(ifMatchAllows(ifMatchTags(header), etag)).toBe(allowed);
  });

  test.each(["abc", "", '"x", y', '"a"b"'])("%j is 400 BAD_REQUEST", (header) => {
    expect(() => ifMatchTags(header)).toThrow(ApiError);
  });
});
