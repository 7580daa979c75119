/** tui/theme: colours, or none when NO_COLOR is set (no-color.org); bold and inverse stay, they are not colour. */
import { createContext, useContext } from "react";

/** Colour is every colour the screens use. */
export type Colour = "green" | "yellow" | "red" | "cyan" | "gray" | "magenta";

const ColourContext = createContext(true);

/** ColourProvider tells the screens whether they may use colour. */
export const ColourProvider = ColourContext.Provider;

/** useColour answers a function that gives a colour, or undefined when colour is off. */
export function useColour(): (colour: Colour | undefined) => Colour | undefined {
  const on = useContext(ColourContext);
  return (colour) => (on ? colour : undefined);
}

/** statusColour is the colour of a render or delivery status. */
export function statusColour(status: string): Colour {
  if (status === "succeeded") return "green";
  if (status === "failed") return "red";
  if (status === "queued" || status === "processing") return "yellow";
  return "gray";
}
