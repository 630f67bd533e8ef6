// The front door's one script: its Copy button puts the MCP configuration on the clipboard
// (or selects it, where the clipboard is not offered).
for (const button of document.querySelectorAll("button[data-copy]")) {
  button.addEventListener("click", async () => {
    const source = document.getElementById(button.dataset.copy);
    try {
      await navigator.clipboard.writeText(source.textContent);
      button.nextElementSibling.hidden = false;
    } catch {
      getSelection().selectAllChildren(source);
    }
  });
}
