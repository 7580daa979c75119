/** Members, the workspace switcher and the password change through the console. These need the API of other
 * branches — /v1/members (c-api) and POST /v1/auth/password — and pass once those are merged. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { ADMIN, shoot, signIn, startRig, type Rig } from "./rig";

const OTHER = { email: "ops@acme.test", password: "ops-pass-123" };
let rig: Rig;
let admin: Page;

beforeAll(async () => {
  rig = await startRig();
  rig.cli("workspaces", "create", "Acme", "--slug", "acme");
  rig.cli("users", "create", "--email", OTHER.email, "--workspace", "acme", "--role", "member", "--password", OTHER.password);
  admin = await rig.page();
  await signIn(admin, ADMIN.email, ADMIN.password);
});
afterAll(() => rig?.stop());

test("an owner adds a new user, whose one-time password is shown once and signs them in; changes a role; removes", async () => {
  await admin.getByRole("link", { name: "Members" }).click();
  await admin.getByRole("cell", { name: ADMIN.email, exact: true }).waitFor();
  const form = admin.getByRole("form", { name: "Add member" });
  await form.getByLabel("Member email").fill("writer@renderd.test");
  await form.getByLabel("Role").selectOption("member");
  await form.getByRole("button", { name: "Add member" }).click();
  const password = await admin.getByLabel("One-time password", { exact: true }).inputValue();
  expect(password.length).toBeGreaterThanOrEqual(8);
  await admin.getByRole("cell", { name: "writer@renderd.test", exact: true }).waitFor();
  await shoot(admin, "members-added");

  const writer = await rig.page();
  await signIn(writer, "writer@renderd.test", password);
  expect(await writer.getByRole("link", { name: "Webhooks" }).count()).toBe(0);
  await writer.context().close();

  // The role is saved by a PATCH that the reload would cut short if it were still on its way: wait for its answer.
  const patched = admin.waitForResponse((r) => r.request().method() === "PATCH" && new URL(r.url()).pathname.startsWith("/v1/members/"));
  await admin.getByLabel("Role of writer@renderd.test").selectOption("admin");
  expect((await patched).status()).toBe(200);
  await admin.reload();
  expect(await admin.getByLabel("Role of writer@renderd.test").inputValue()).toBe("admin");
  await admin.getByRole("button", { name: "Remove writer@renderd.test" }).click();
  await admin.getByRole("dialog").getByRole("button", { name: "Remove", exact: true }).click();
  await admin.getByRole("cell", { name: "writer@renderd.test", exact: true }).waitFor({ state: "detached" });
});

test("a user of two workspaces switches between them, and the navigation follows their role in each", async () => {
  await admin.getByRole("link", { name: "Members" }).click();
  const form = admin.getByRole("form", { name: "Add member" });
  await form.getByLabel("Member email").fill(OTHER.email);
  await form.getByLabel("Role").selectOption("admin");
  await form.getByRole("button", { name: "Add member" }).click();
  await admin.getByRole("cell", { name: OTHER.email, exact: true }).waitFor();

  const page = await rig.page();
  await signIn(page, OTHER.email, OTHER.password);
  const switcher = page.getByLabel("Workspace");
  await switcher.waitFor();
  const nav = page.getByRole("navigation", { name: "Console" });
  const options = await switcher.locator("option").allTextContents();
  expect(options.toSorted()).toEqual(["Acme (member)", "Default (admin)"]);
  for (const option of options) {
    // The switch loads the console anew, and selectOption does not wait for that: until the new page has loaded, the
    // old one's Overview heading and its role's links are still there to be read.
    await Promise.all([page.waitForEvent("load"), switcher.selectOption({ label: option })]);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await nav.getByRole("link", { name: "Usage" }).waitFor();
    expect(await nav.getByRole("link", { name: "Webhooks" }).count()).toBe(option.includes("(admin)") ? 1 : 0);
  }
  await shoot(page, "workspace-switcher");
  await page.context().close();
});

test("Change password: a wrong current password is shown at its field; the new one signs in", async () => {
  const page = await rig.page();
  await signIn(page, OTHER.email, OTHER.password);
  await page.getByText("Account").click();
  await page.getByRole("link", { name: "Change password" }).click();
  await page.getByLabel("Current password").fill("not-my-password");
  await page.getByLabel("New password").fill("ops-pass-456");
  await page.getByRole("button", { name: "Change password" }).click();
  await page.locator('input[aria-invalid="true"]').waitFor();
  expect(await page.getByLabel("Current password").getAttribute("aria-invalid")).toBe("true");
  await page.getByLabel("Current password").fill(OTHER.password);
  await page.getByRole("button", { name: "Change password" }).click();
  await page.getByRole("status").filter({ hasText: "Your password has been changed." }).waitFor();
  await page.context().close();

  const again = await rig.page();
  await signIn(again, OTHER.email, "ops-pass-456");
  await again.context().close();
});
