// The teleTAN page (and the one-time code page, which shares its ids): a copy button, and the code taken off the page
// after the display time. Everything else works without JavaScript (a <noscript> refresh leaves the page after the same
// time).
(function () {
  'use strict';
  var card = document.querySelector('[data-hide-after]');
  if (!card) return;
  var panel = document.getElementById('teletan-panel');
  var hiddenNotice = document.getElementById('teletan-hidden');
  var deadline = Date.now() + 1000 * parseInt(card.getAttribute('data-hide-after'), 10);

  // Timers of background tabs are throttled: compare with the clock instead of trusting one long timeout.
  function hideWhenDue() {
    if (!panel.isConnected || Date.now() < deadline) return;
    panel.remove(); // removed, not just hidden: the code is gone from the page
    hiddenNotice.hidden = false;
  }
  setInterval(hideWhenDue, 1000);
  document.addEventListener('visibilitychange', hideWhenDue);

  var button = document.getElementById('copy');
  button.hidden = false;
  button.addEventListener('click', function () {
    var code = button.getAttribute('data-code');
    function done() { button.textContent = button.getAttribute('data-copied'); }
    function fallback() {
      var field = document.createElement('textarea');
      field.value = code;
      field.setAttribute('readonly', '');
      field.style.position = 'fixed';
      field.style.opacity = '0';
      document.body.appendChild(field);
      field.select();
      try { if (document.execCommand('copy')) done(); } finally { field.remove(); }
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(code).then(done, fallback);
    } else {
      fallback();
    }
  });
})();
