/** Destinations through the console: one is added from the form with its credential masked from then on, tested (the
 * file arrives), renamed with the masked credential kept, and deleted after a confirmation. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { startHttpReceiver } from "../destinations/servers";
import { until } from "../wait";
import { ADMIN, shoot, signIn, startRig, type Rig } from "./rig";

let rig: Rig;
let admin: Page;
let receiver: ReturnType<typeof startHttpReceiver>;
const TOKEN = "Bearer console-t0ken";

beforeAll(async () => {
  receiver = startHttpReceiver();
  rig = await startRig();
  admin = await rig.page();
  await signIn(admin, ADMIN.email, ADMIN.password);
});
afterAll(async () => {
  await rig?.stop();
  receiver?.stop();
});

test("a destination is added, tested, renamed and deleted; its credential never shows again", async () => {
  await admin.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Destinations" }).click();
  await admin.getByRole("heading", { level: 1, name: "Destinations" }).waitFor();
  const form = admin.getByRole("form", { name: "Add destination" });
  await form.getByLabel("Name").fill("Archive");
  await form.getByLabel("Type").selectOption("http");
  await form.getByLabel(/^Config/).fill(JSON.stringify({ url: `${receiver.url}/drop`, method: "PUT", headers: { authorization: TOKEN } }));
  await form.getByRole("button", { name: "Add destination" }).click();
  await admin.getByRole("heading", { level: 1, name: "Destination" }).waitFor();
  const config = admin.getByRole("form", { name: "Save destination" }).getByLabel(/^Config/);
  expect(JSON.parse(await config.inputValue()).headers).toEqual({ authorization: "********" });

  await admin.getByRole("button", { name: "Send a test file" }).click();
  await admin.getByText(`Test file written: ${receiver.url}/drop`).waitFor();
  expect(receiver.requests.at(-1)!.headers.get("authorization")).toBe(TOKEN);
  await shoot(admin, "destination-tested");

  const edit = admin.getByRole("form", { name: "Save destination" });
  await edit.getByLabel("Name").fill("Archive (PUT)");
  await edit.getByRole("button", { name: "Save destination" }).click();
  await admin.getByRole("status").filter({ hasText: "Saved." }).waitFor();
  // The first test's "Test file written" is still on the page when the click returns (the mutation's new state comes a
  // task later), and until this test's file arrives the receiver's last request is the first test's: wait for it.
  const sent = receiver.requests.length;
  await admin.getByRole("button", { name: "Send a test file" }).click();
  await until(() => receiver.requests.length > sent);
  await admin.getByText(/Test file written/).waitFor();
  expect(receiver.requests.at(-1)!.headers.get("authorization")).toBe(TOKEN);
  expect(await admin.content()).not.toContain(TOKEN);

  await admin.getByRole("button", { name: "Delete destination" }).click();
  await admin.getByRole("dialog").getByRole("button", { name: "Delete", exact: true }).click();
  await admin.getByRole("heading", { level: 1, name: "Destinations" }).waitFor();
  await admin.getByText("No destinations yet").waitFor();
});

test("a refused config is shown with the field it is about", async () => {
  await admin.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Destinations" }).click();
  const form = admin.getByRole("form", { name: "Add destination" });
  await form.getByLabel("Name").fill("Pinned SFTP");
  await form.getByLabel("Type").selectOption("sftp");
  await form.getByRole("button", { name: "Add destination" }).click();
  await admin.getByRole("alert").getByText("/config/host").first().waitFor();
});
