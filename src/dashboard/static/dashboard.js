// RouteGate dashboard: the little the pages need beyond HTML forms. Loaded as a file (the CSP allows no inline script);
// every page works without it, except the copy buttons.
'use strict';

document.addEventListener('click', function (event) {
  var button = event.target.closest('button.copy[data-copy]');
  if (!button) return;
  var source = document.getElementById(button.getAttribute('data-copy'));
  if (!source) return;
  var text = source.textContent.trim();
  var done = function () {
    button.textContent = 'Copied';
    button.setAttribute('data-copied', 'true');
  };
  if (navigator.clipboard && window.isSecureContext) {
    // Refused (no permission, page not focused): the same fallback as plain http.
    navigator.clipboard.writeText(text).then(done, function () { selectText(source); done(); });
  } else {
    selectText(source);
    done();
  }
});

// Selected, so Ctrl+C / long-press copies it where the clipboard API is not available (plain http).
function selectText(node) {
  var range = document.createRange();
  range.selectNodeContents(node);
  var selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  try { document.execCommand('copy'); } catch (e) { /* the selection is there to copy by hand */ }
}

// Forms that change something hard to undo ask first.
document.addEventListener('submit', function (event) {
  var form = event.target;
  var question = form.getAttribute && form.getAttribute('data-confirm');
  if (question && !window.confirm(question)) event.preventDefault();
});
