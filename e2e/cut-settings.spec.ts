import { expect, test } from "./fixtures";

test("sets, refuses and clears the no-match cut on the settings page", async ({ page, agent }) => {
  await page.goto(`/agents/${agent.id}/settings`);
  const form = page.getByRole("form", { name: "No-match cut" });
  await expect(form.getByText("No cut is set")).toBeVisible();
  // Typing before hydration can be lost when React takes over the form.
  await page.waitForLoadState("networkidle");

  const field = form.getByLabel("Maximum distance");
  await field.fill("3");
  await form.getByRole("button", { name: "Save cut" }).click();
  await expect(form.getByText(/at most 2/)).toBeVisible();
  expect((await (await page.request.get(`/api/agents/${agent.id}`)).json()).max_distance).toBeNull();

  await field.fill("0.7");
  await form.getByRole("button", { name: "Save cut" }).click();
  await expect(form.getByText("Saved: results farther than 0.7 are dropped.")).toBeVisible();
  const saved = await (await page.request.get(`/api/agents/${agent.id}`)).json();
  expect(saved).toMatchObject({ max_distance: 0.7 });
  expect(saved.max_distance_model).toMatch(/^local-/);
  await expect(form.getByText(/Results farther than 0.7 are dropped \(set for local-/)).toBeVisible();

  await form.getByRole("button", { name: "Clear cut" }).click();
  await expect(form.getByText(/No cut: searches return top_k results/)).toBeVisible();
  expect((await (await page.request.get(`/api/agents/${agent.id}`)).json()).max_distance).toBeNull();
});
