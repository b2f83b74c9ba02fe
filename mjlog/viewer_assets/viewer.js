// mjlog replay viewer: renders the snapshots the replayer embedded as JSON.
// It re-implements no rule: every hand, meld, pile, count and score comes from
// the data. Controls: buttons, slider, event list, keys (←/→, Home/End, space),
// and the URL fragment #seq=N keeps the position.
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("mjlog-data").textContent);
  var META = DATA.meta, STEPS = DATA.steps, WINS = DATA.wins, NAMES = DATA.tiles.names;
  var REASONS = DATA.reasons || {};
  var N = STEPS.length, NP = META.players;
  var SUIT = "mpsz", SUITCH = ["万", "筒", "条"], HONOR = ["东", "南", "西", "北", "白", "发", "中"];
  var GREEN = 32;  // 发, shown for the laid-out bonus tiles
  var cur = -1, timer = null;

  function $(id) { return document.getElementById(id); }
  // The DOM is built with createElement and text nodes, never from HTML strings:
  // every value from the data (a shared run may be hostile) is shown as text.
  // Attribute names are the code's own; data only ever fills text and values.
  function add(parent, kids) {
    if (kids === null || kids === undefined || kids === "") return parent;
    if (Array.isArray(kids)) {
      kids.forEach(function (k) { add(parent, k); });
    } else if (typeof kids === "object" && kids.nodeType) {
      parent.appendChild(kids);
    } else {
      parent.appendChild(document.createTextNode(String(kids)));
    }
    return parent;
  }
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v !== null && v !== undefined) e.setAttribute(k, String(v));
      });
    }
    return add(e, kids);
  }
  function fill(id, kids) { var e = $(id); e.textContent = ""; return add(e, kids); }
  // a table of the code's own names, never an inherited property ("constructor")
  function own(table, key) {
    return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
  }
  function code(t) { return (t % 9 + 1) + SUIT[Math.floor(t / 9)]; }
  // notation, as mjlog.tiles.fmt (sorted) and mjlog.replay.fmt_ordered (in order)
  function fmt(ts) {
    if (!ts || !ts.length) return "-";
    var c = new Array(34).fill(0), out = "";
    ts.forEach(function (t) { c[t]++; });
    for (var s = 0; s < 4; s++) {
      var d = "";
      for (var r = 0; r < (s === 3 ? 7 : 9); r++) d += String(r + 1).repeat(c[9 * s + r]);
      if (d) out += d + SUIT[s];
    }
    return out;
  }
  function fmtOrdered(ts) {
    if (!ts || !ts.length) return "-";
    var out = "", curS = null;
    ts.forEach(function (t) {
      var s = SUIT[Math.floor(t / 9)];
      if (curS !== null && s !== curS) out += curS;
      out += String(t % 9 + 1); curS = s;
    });
    return out + curS;
  }
  function signed(x) { return (x > 0 ? "+" : "") + x; }
  function cls(x) { return x > 0 ? "pos" : x < 0 ? "neg" : ""; }
  function reason(r) { var zh = own(REASONS, r); return r + (zh ? " " + zh : ""); }

  function tile(t, extra) {
    var s = Math.floor(t / 9), r = t % 9 + 1;
    var c = "tile s" + SUIT[s] + (s === 3 ? " z" + r : "") + (extra ? " " + extra : "");
    var face = s < 3 ? [el("b", null, r), el("i", null, SUITCH[s])] : el("b", null, HONOR[r - 1]);
    return el("span", { "class": c, "data-t": code(t), title: NAMES[t] + " " + code(t) }, face);
  }
  function tiles(ts, extraOf) {
    return ts.map(function (t, i) { return tile(t, extraOf ? extraOf(t, i) : ""); });
  }

  var MELD_LABEL = { pon: "碰 pon", exposed: "明杠 kong", added: "补杠 kong", concealed: "暗杠 kong" };
  function meld(m, hot) {
    var kind = m[0], t = m[1], from = m[2], n = kind === "pon" ? 3 : 4, ts = [];
    for (var i = 0; i < n; i++) ts.push(t);
    var src = from !== null && from !== undefined ? " ←S" + from : "";
    return el("div", { "class": "meld", "data-meld": kind + ":" + code(t) }, [
      el("div", { "class": "tiles" }, tiles(ts, function () {
        return (kind === "concealed" ? "concealed" : "") + (hot ? " hot" : "");
      })),
      el("div", { "class": "label" }, (own(MELD_LABEL, kind) || kind) + src)]);
  }
  function meldCode(ms) {
    return ms.length ? ms.map(function (m) { return m[0] + ":" + code(m[1]); }).join(",") : "-";
  }

  // the win (if any) of each seat up to step i
  function winOf(seat, i) {
    for (var k = 0; k < WINS.length; k++) if (WINS[k].seat === seat && WINS[k].seq <= i) return WINS[k];
    return null;
  }

  function seatEl(st, s, i) {
    var ev = st.ev, type = ev[0], evSeat = ev[1];
    var acting = evSeat === s && type !== "transfer" && type !== "end";
    var hand = st.hands[s].slice(), drawn = null;
    if (type === "draw" && evSeat === s) {
      var k = hand.lastIndexOf(ev[2]);
      if (k >= 0) { hand.splice(k, 1); drawn = ev[2]; }
    }
    var voidSuit = st.void[s], vi = voidSuit ? SUIT.indexOf(voidSuit) : -1;
    var handEls = tiles(hand, function (t) { return Math.floor(t / 9) === vi ? "void" : ""; });
    if (drawn !== null) handEls.push(el("span", { "class": "gap" }), tile(drawn, "drawn"));
    // st.won marks the blood battle's winners who left; st.winners every variant's
    var won = st.won[s] || st.winners.indexOf(s) >= 0;
    var w = won ? winOf(s, i) : null;
    if (w && w.method !== "self_draw" && w.method !== "shilaotou") {
      handEls.push(el("span", { "class": "gap" }), tile(w.tile, "wintile"));
    }
    var hotMeld = (type === "pon" || type === "kong") && evSeat === s ? ev[2] : null;
    var melds = st.melds[s].map(function (m) { return meld(m, m[1] === hotMeld); });
    if (st.bonus[s]) {
      var gs = []; for (var b = 0; b < st.bonus[s]; b++) gs.push(GREEN);
      melds.push(el("div", { "class": "meld bonus-tiles", "data-bonus": st.bonus[s] }, [
        el("div", { "class": "tiles" }, tiles(gs, function (t, j) {
          return type === "bonus" && evSeat === s && j === gs.length - 1 ? "hot" : "";
        })),
        el("div", { "class": "label" }, "发 bonus ×" + st.bonus[s])]));
    }
    var disc = st.discards[s];
    var discEls = tiles(disc, function (t, j) {
      return type === "discard" && evSeat === s && j === disc.length - 1 ? "last" : "";
    });
    var badges = [];
    if (s === META.dealer) badges.push(el("span", { "class": "badge dealer", title: "dealer" }, "庄 dealer"));
    if (voidSuit) {
      badges.push(el("span", { "class": "badge void", title: "void suit (定缺)" },
        "缺 " + SUITCH[vi] + " (" + voidSuit + ")"));
    }
    if (won) {
      var order = st.winners.indexOf(s) + 1;
      badges.push(el("span", { "class": "badge won" }, "胡 won" + (st.winners.length > 1 ? " #" + order : "")));
    }
    if (!won && st.turn === s && (st.phase === "DRAW" || st.phase === "ACT")) {
      badges.push(el("span", { "class": "badge turn" }, st.phase === "DRAW" ? "to draw" : "to play"));
    } else if ((st.phase === "CLAIM" || st.phase === "ROB") && st.may.indexOf(s) >= 0) {
      badges.push(el("span", { "class": "badge turn" }, "may claim"));
    }
    var delta = st.deltas[s];
    var score = el("span", { "class": "score" }, ["hand ", el("b", { "class": cls(delta) }, signed(delta))]);
    var total = null;
    if (META.match_before) {
      total = META.match_before[s] + delta;
      add(score, [" · match ", el("b", { "class": cls(total) }, signed(total))]);
    }
    var agent = META.agents[s] ? el("span", { "class": "agent" }, META.agents[s]) : null;
    return el("div", {
      "class": "seat" + (acting ? " acting" : "") + (won ? " won" : ""), id: "seat-" + s,
      "data-seat": s, "data-hand": fmt(st.hands[s]), "data-melds": meldCode(st.melds[s]),
      "data-discards": fmtOrdered(disc), "data-score": delta, "data-total": total,
      "data-bonus": st.bonus[s], "data-void": voidSuit || "", "data-won": won ? 1 : 0
    }, [
      el("div", { "class": "head" }, [el("span", { "class": "name" }, "S" + s), badges, agent, score]),
      el("div", { "class": "row" }, [el("div", { "class": "hand" }, handEls),
        el("div", { "class": "melds" }, melds)]),
      el("div", { "class": "discards" }, [el("span", { "class": "label" }, "discards"), discEls])]);
  }

  var METHOD = { self_draw: "self-draw 自摸", discard: "on a discard 点炮",
    robbed_kong: "robbing a kong 抢杠胡", shilaotou: "十老头" };
  function winEl(w, i) {
    var hand = tiles(w.hand, function (t, j) {
      return t === w.tile && j === w.hand.lastIndexOf(w.tile) ? "wintile" : "";
    });
    var melds = w.melds.map(function (m) { return meld(m, false); });
    // the scorer's breakdown: each pattern with what it adds, the formula, who pays
    var b = w.breakdown;
    var pats = b.terms.map(function (t) {
      return el("span", { "class": "pat", "data-key": t.key, "data-role": t.role, title: t.key },
        [t.name + " ", el("code", null, t.key), t.count > 1 ? " ×" + t.count : "",
         el("span", { "class": "adds" }, " " + termAdds(t))]);
    });
    var payers = w.payers.map(function (p) { return "S" + p; }).join(", ");
    var nums = [];
    if (w.fan !== null && w.fan !== undefined) nums.push("fan " + w.fan);
    if (w.multiplier !== null && w.multiplier !== undefined) nums.push("×" + w.multiplier);
    if (w.points !== null && w.points !== undefined) nums.push("points " + w.points + (w.capped ? " (capped)" : ""));
    if (w.total !== null && w.total !== undefined) nums.push("total " + w.total);
    if (w.bonus) nums.push("发 ×" + w.bonus);
    var pays = w.transfers.map(function (tr) {
      return el("li", { "class": tr[0] > i ? "pending" : "" },
        "S" + tr[1] + " → S" + tr[2] + " " + tr[3] + " (" + reason(tr[4]) + ")");
    });
    var from = "";
    if (w.from_seat !== null && w.from_seat !== undefined) {
      // a self-draw with a payer is 点杠花: the kong's feeder pays alone
      from = w.method === "self_draw" ? " · paid by S" + w.from_seat + " (点杠花)" : " from S" + w.from_seat;
    }
    var current = i === w.seq || w.transfers.some(function (tr) { return tr[0] === i; });
    return el("div", {
      "class": "wincard" + (current ? " current" : ""), "data-seat": w.seat,
      "data-patterns": w.patterns.map(function (p) { return p[0]; }).join(",")
    }, [
      el("div", { "class": "title" }, "S" + w.seat + " 胡 wins " + (own(METHOD, w.method) || w.method) +
        from + " · " + NAMES[w.tile] + " " + code(w.tile)),
      el("div", { "class": "row" }, [el("div", { "class": "hand" }, hand),
        el("div", { "class": "melds" }, melds)]),
      el("div", { "class": "pats" }, pats),
      el("div", { "class": "formula", "data-formula": b.formula }, b.formula),
      el("div", { "class": "nums" }, nums.join(" · ")),
      el("div", { "class": "payers", "data-payers": w.payers.join(",") },
        b.payer_text + " " + b.points + (payers ? " (" + payers + ")" : "")),
      pays.length ? el("ul", null, pays) : null]);
  }
  // what one term adds, as mjlog score prints it
  function termAdds(t) {
    if (t.role === "base") return String(t.value);
    if (t.role === "fan") return t.value + " fan";
    var f = [];
    for (var k = 0; k < t.count; k++) f.push("×" + t.value);
    return f.join(" ");
  }

  function metaEls() {
    var m = META, bits = [];
    bits.push("dealer S" + m.dealer);
    bits.push("dice " + m.dice.join("+"));
    bits.push("break " + m.break);
    bits.push(m.wall_size + " tiles" + (m.wall_logged ? "" : " (wall rebuilt)"));
    bits.push(m.players + " players");
    if (m.run_id) bits.push("run " + m.run_id);
    return bits.map(function (b) { return el("span", { "class": "chip" }, b); });
  }

  function buildStatic() {
    fill("meta", metaEls());
    var sl = $("slider");
    sl.max = String(N - 1);
    fill("events", STEPS.map(function (st, i) {
      return el("li", { value: i, "data-seq": i }, st.text);
    }));
  }

  function render(i) {
    var st = STEPS[i];
    var root = $("table");
    root.dataset.seq = String(i);
    root.dataset.wallLeft = String(st.wall);
    document.body.dataset.seq = String(i);
    var seats = [];
    for (var s = 0; s < NP; s++) seats.push(seatEl(st, s, i));
    fill("seats", seats);
    $("wall-left").textContent = String(st.wall);
    $("wall").dataset.wallLeft = String(st.wall);
    $("step").textContent = "event " + i + " of " + (N - 1) + " · " + String(st.phase).toLowerCase();
    $("event").textContent = st.words;
    $("event-code").textContent = st.text;
    fill("event-tiles", st.ev[0] === "horse" && st.ev[5] ? tiles(st.ev[5]) : null);
    $("next").textContent = st.next || "";
    var over = "";
    if (st.over) {
      over = st.winners.length ? "Hand over: " + st.winners.map(function (w) { return "S" + w; }).join(", ") + " won." : "Hand over: drawn (荒庄), no winner.";
      if (st.next_dealer !== null && st.next_dealer !== undefined) over += " Next dealer S" + st.next_dealer + ".";
    }
    $("over").textContent = over;
    fill("wins", WINS.filter(function (w) { return w.seq <= i; }).map(function (w) {
      return winEl(w, i);
    }));
    var pays = [];
    for (var q = 0; q <= i; q++) {
      var e = STEPS[q].ev;
      if (e[0] === "transfer") {
        pays.push(el("li", { value: q, "class": q === i ? "hot" : "" },
          "S" + e[3] + " → S" + e[1] + " " + e[6] + " (" + reason(e[4]) + ")"));
      }
    }
    fill("payments", pays.length ? pays : el("li", { "class": "pending" }, "none yet"));
    var list = $("events");
    var prev = list.querySelector("li.current");
    if (prev) prev.classList.remove("current");
    var li = list.children[i];
    if (li) li.classList.add("current");
    // scrolling reads the layout: once per frame, not once per step
    if (!scrollPending) {
      scrollPending = true;
      requestAnimationFrame(scrollLists);
    }
    $("slider").value = String(i);
    $("pos").textContent = "seq " + i + " / " + (N - 1);
  }

  var scrollPending = false;
  function scrollLists() {
    scrollPending = false;
    var list = $("events"), li = list.children[cur];
    if (li) {
      var top = li.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top + li.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = top - list.clientHeight / 2;
      }
    }
    var pays = $("payments");
    pays.scrollTop = pays.scrollHeight;
  }

  function clamp(i) { return Math.max(0, Math.min(N - 1, i | 0)); }
  function writeHash(i) {
    var h = "#seq=" + i;
    if (location.hash === h) return;
    try { history.replaceState(null, "", h); } catch (err) { location.replace(h); }
  }
  function go(i) {
    i = clamp(i);
    if (i === cur) return;
    cur = i;
    render(i);
    writeHash(i);
  }
  function readHash() {
    var m = /(?:^#|[#&;])seq=(\d+)/.exec(location.hash);
    return m ? clamp(parseInt(m[1], 10)) : null;
  }

  function setPlaying(on) {
    if (timer !== null) { clearInterval(timer); timer = null; }
    if (on) {
      if (cur >= N - 1) go(0);
      timer = setInterval(function () {
        if (cur >= N - 1) { setPlaying(false); return; }
        go(cur + 1);
      }, parseInt($("speed").value, 10) || 600);
    }
    document.body.dataset.playing = on ? "1" : "0";
    $("b-play").textContent = on ? "\u275a\u275a pause" : "\u25b6 play";
  }
  function toggle() { setPlaying(timer === null); }
  function step(i) { setPlaying(false); go(i); }

  function wire() {
    $("b-start").onclick = function () { step(0); };
    $("b-prev").onclick = function () { step(cur - 1); };
    $("b-next").onclick = function () { step(cur + 1); };
    $("b-end").onclick = function () { step(N - 1); };
    $("b-play").onclick = function () { toggle(); };
    $("slider").addEventListener("input", function () { step(parseInt(this.value, 10)); });
    $("speed").addEventListener("change", function () { if (timer !== null) setPlaying(true); });
    $("events").addEventListener("click", function (e) {
      var li = e.target.closest("li");
      if (li) step(parseInt(li.dataset.seq, 10));
    });
    // capture phase: the keys work whatever has the focus (a button, the slider)
    document.addEventListener("keydown", function (e) {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.target && e.target.tagName === "SELECT") return;
      var k = e.key, done = true;
      if (k === "ArrowLeft") step(cur - 1);
      else if (k === "ArrowRight") step(cur + 1);
      else if (k === "Home") step(0);
      else if (k === "End") step(N - 1);
      else if (k === " " || k === "Spacebar") { if (!e.repeat) toggle(); }
      else done = false;
      if (done) { e.preventDefault(); e.stopPropagation(); }
    }, true);
    document.addEventListener("keyup", function (e) {
      if (e.key === " " && !(e.target && e.target.tagName === "SELECT")) e.preventDefault();
    }, true);
    window.addEventListener("hashchange", function () {
      var i = readHash();
      if (i !== null && i !== cur) step(i);
    });
  }

  buildStatic();
  wire();
  setPlaying(false);
  var start = readHash();
  go(start === null ? (DATA.start || 0) : start);
  document.body.dataset.ready = "1";
})();
