// Starts `codeheal lsp` for Python files; the server does the rest (docs/editors.md).
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function options() {
  const config = vscode.workspace.getConfiguration("codeheal");
  const testCommand = config.get("testCommand");
  return {
    trustedFolders: config.get("trustedFolders"),
    ...(testCommand ? { testCommand } : {}),
  };
}

async function activate(context) {
  const command = vscode.workspace.getConfiguration("codeheal").get("path") || "codeheal";
  client = new LanguageClient(
    "codeheal",
    "codeheal",
    { command, args: ["lsp"] },
    {
      documentSelector: [{ scheme: "file", language: "python" }],
      initializationOptions: options(),
    },
  );
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("codeheal") && client) {
        client.sendNotification("workspace/didChangeConfiguration", { settings: { codeheal: options() } });
      }
    }),
  );
  await client.start();
}

async function deactivate() {
  if (client) {
    await client.stop();
  }
}

module.exports = { activate, deactivate };
