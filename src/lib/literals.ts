/** literals: a TypeBox union of string literals whose static type keeps each member (a mapped `.map` loses them). */
import { Type, type SchemaOptions, type TLiteral, type TUnion } from "@sinclair/typebox";

type Literals<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };

/** literalUnion builds `Type.Union([Type.Literal(a), Type.Literal(b), ...])` from a const array. */
export function literalUnion<const T extends readonly string[]>(values: T, options?: SchemaOptions): TUnion<Literals<T>> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as unknown as TUnion<Literals<T>>;
}
