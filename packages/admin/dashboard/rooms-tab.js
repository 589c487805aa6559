// The Rooms tab (docs/rooms.md): every room with its member count, and the members of the one
// selected (principal, metadata, when they joined). Live: a join, a leave or a refusal on the
// event stream reads the rooms again (throttled), so the counts follow the cluster's presence.

import { get } from './api.js';
import { createTable } from './data-table.js';
import { $, h, replace, setText } from './dom.js';
import { clock, dateTime, num, shortId } from './format.js';
import { throttled } from './schedule.js';

const ROOM_EVENTS = new Set(['RoomMemberJoined', 'RoomMemberLeft']);

export function createRoomsTab() {
  let selected = null; // the room whose members are listed
  let rooms = [];

  const roomsTable = createTable($('#rooms-table'), {
    label: 'Rooms',
    rowKey: (r) => r.name,
    empty: 'No room has members. Rooms are the handlers with the rooms interceptor (docs/rooms.md).',
    sort: { key: 'members', dir: 'descending' },
    columns: [
      { key: 'name', label: 'Room', render: (r) => h('code', { text: r.name }) },
      { key: 'members', label: 'Members', num: true, render: (r) => num(r.members) },
    ],
    onRowActivate: (r) => {
      selected = r.name;
      showMembers();
    },
    note: 'Select a room to list its members.',
  });

  const membersTable = createTable($('#room-members-table'), {
    label: 'Members of the selected room',
    rowKey: (m) => m.id,
    empty: 'Nobody.',
    sort: { key: 'joinedAt', dir: 'ascending' },
    columns: [
      { key: 'principal', label: 'Principal', render: (m) => m.principal ?? h('span', { class: 'muted', text: 'anonymous' }) },
      { key: 'meta', label: 'Metadata', value: (m) => JSON.stringify(m.meta), wrap: true },
      { key: 'id', label: 'Member', render: (m) => h('code', { text: shortId(m.id, 12) }), title: (m) => m.id },
      { key: 'joinedAt', label: 'Joined', render: (m) => clock(m.joinedAt), title: (m) => dateTime(m.joinedAt) },
    ],
  });

  function showMembers() {
    const room = rooms.find((r) => r.name === selected);
    setText($('#room-members-title'), room ? `Members of ${room.name}` : 'Members');
    const listed = room?.memberDetails ?? [];
    membersTable.setRows(listed);
    setText(
      $('#room-members-count'),
      room === undefined
        ? ''
        : room.members > listed.length
          ? `${num(listed.length)} of ${num(room.members)} listed`
          : `${num(room.members)}`,
    );
  }

  const refresh = throttled(async () => {
    const { data, total } = await get('rooms', { limit: 1000 });
    rooms = Array.isArray(data) ? data : [];
    roomsTable.setRows(rooms);
    const members = rooms.reduce((n, r) => n + r.members, 0);
    setText($('#rooms-count'), `${num(total ?? rooms.length)} rooms, ${num(members)} members`);
    if (selected === null || !rooms.some((r) => r.name === selected)) selected = rooms[0]?.name ?? null;
    showMembers();
  }, 250);

  let visible = false;
  return {
    start() {
      replace($('#room-members-count'));
    },
    show() {
      visible = true;
      refresh.now();
    },
    hide() {
      visible = false;
    },
    resync() {
      if (visible) refresh.trigger();
    },
    onEvent(ev) {
      if (visible && ROOM_EVENTS.has(ev.type)) refresh.trigger();
    },
  };
}
