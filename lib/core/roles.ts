/** What a signed-in person or an API token may do: read everything, or change it too. */
export type Role = "viewer" | "editor";
