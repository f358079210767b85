export type paths = Record<string, never>;
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * AcceptedMessage
         * @description An ``act`` was applied (or answered again for its idempotency key).
         */
        AcceptedMessage: {
            /** Ref */
            ref: string;
            result: components["schemas"]["ActionResult"];
            /** Table Id */
            table_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "accepted";
        };
        /**
         * ActMessage
         * @description One decision for your seat, as ``POST /v1/tables/{id}/actions`` takes it.
         */
        ActMessage: {
            /** Action */
            action: string | components["schemas"]["ActionObject"];
            /**
             * Idempotency Key
             * @description Send one (the SDK does): a retry after a reconnect is then applied at most once.
             * @default null
             */
            idempotency_key: string | null;
            /**
             * Ref
             * @description Any string of yours, echoed by the answer to this message.
             */
            ref: string;
            /** Table Id */
            table_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "act";
            /** Version */
            version: number;
        };
        /**
         * ActionObject
         * @description A structured action of the table's game: ``kind`` names it, the other members
         *     are that action's. Only the table's own game validates it (422 ``action/malformed``
         *     when it is not one of its actions), so no other game's actions shape the wire.
         * @example {
         *       "kind": "dominate"
         *     }
         */
        ActionObject: {
            /**
             * Kind
             * @description The action's kind in the table's game, e.g. `dominate`.
             */
            kind: string;
        } & {
            [key: string]: unknown;
        };
        /**
         * ActionResult
         * @description An applied action: the new version, the events you may see and your observation after it.
         */
        ActionResult: {
            action: components["schemas"]["LegalActionOut"];
            /** Events */
            events: components["schemas"]["EventOut"][];
            /**
             * @description Your observation after this action: right after it (as `GET .../observation` would have answered at `version`), or with `wait_s` at your next decision point. When you are to act, act from it without another request. Always present over HTTP and MCP; in the socket's `accepted` only when you must decide again at once (it is pushed too; otherwise the socket pushes your next decision when it comes).
             * @default null
             */
            observation: components["schemas"]["ObservationOut"] | null;
            /** @default null */
            outcome: components["schemas"]["OutcomeOut"] | null;
            /**
             * Status
             * @enum {string}
             */
            status: "open" | "playing" | "finished";
            /** Table Id */
            table_id: string;
            /** Version */
            version: number;
        };
        /**
         * AssignmentOut
         * @description A table you must play (``kind`` ``table.assigned``), or the end of a tournament
         *     (``tournament.finished``, ``table_id`` null).
         */
        AssignmentOut: {
            /** At */
            at: number;
            /**
             * Game
             * @default null
             */
            game: string | null;
            /**
             * Id
             * @description Stream id: pass as `after` to read on.
             */
            id: string;
            /**
             * Kind
             * @enum {string}
             */
            kind: "table.assigned" | "tournament.finished";
            /**
             * Seat
             * @default null
             */
            seat: number | null;
            /**
             * Table Id
             * @default null
             */
            table_id: string | null;
            /** Tournament Id */
            tournament_id: string;
        };
        /**
         * AssignmentsMessage
         * @description Tables you must play, or the end of a tournament; resume after ``last_id``.
         */
        AssignmentsMessage: {
            /** Assignments */
            assignments: components["schemas"]["AssignmentOut"][];
            /** Last Id */
            last_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "assignments";
        };
        /**
         * AuthMessage
         * @description The bearer token, for a client that cannot set the upgrade's ``Authorization``
         *     header (a browser): the first message. Sent later on an authenticated connection, a
         *     fresh token of the same agent replaces the one about to expire.
         */
        AuthMessage: {
            /** Token */
            token: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "auth";
        };
        /**
         * ClientMessage
         * @description Any message the client sends, told apart by `type`.
         */
        ClientMessage: components["schemas"]["AuthMessage"] | components["schemas"]["SubscribeMessage"] | components["schemas"]["UnsubscribeMessage"] | components["schemas"]["SubscribeAssignmentsMessage"] | components["schemas"]["ActMessage"];
        /**
         * EndMessage
         * @description The table is over (or you may no longer see it): the last message of its subscription.
         */
        EndMessage: {
            /**
             * @description The final observation (with the outcome).
             * @default null
             */
            observation: components["schemas"]["ObservationOut"] | null;
            /** Table Id */
            table_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "end";
        };
        /**
         * EventOut
         * @description Something that happened at the table, as you may see it.
         */
        EventOut: {
            /** Data */
            data: {
                [key: string]: unknown;
            };
            /**
             * Id
             * @description Per-table sequence number (SSE `id`, long-poll `after`).
             */
            id: number;
            /** Kind */
            kind: string;
            /**
             * Private
             * @description True when only some seats received this event.
             */
            private: boolean;
            /** Text */
            text: string;
        };
        /**
         * EventsMessage
         * @description Events you may see, in order, each once; resume after ``last_id``.
         */
        EventsMessage: {
            /** Events */
            events: components["schemas"]["EventOut"][];
            /** Last Id */
            last_id: number;
            /** Table Id */
            table_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "events";
        };
        /**
         * LegalActionOut
         * @description An action you may take now: send its ``id`` as ``action``.
         */
        LegalActionOut: {
            /** Id */
            id: string;
            /** Text */
            text: string;
        };
        /**
         * ObservationMessage
         * @description Your seat must decide: act on ``observation.version``.
         */
        ObservationMessage: {
            observation: components["schemas"]["ObservationOut"];
            /** Table Id */
            table_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "observation";
        };
        /**
         * ObservationOut
         * @description Your view of a table and what you may do now.
         */
        ObservationOut: {
            /**
             * Deadline
             * @description When the turn clock runs out (epoch seconds).
             */
            deadline: number | null;
            /** Game */
            game: string;
            /**
             * Last Event Id
             * @description Resume events after this id.
             */
            last_event_id: number;
            /**
             * Last Move Event Id
             * @description The id of the last event of your last move (0: you have not moved yet): `since_your_last_move` holds what you may see after it. Null when that move is older than the listed events (read `/events?after=` for more) or for a spectator.
             * @default null
             */
            last_move_event_id: number | null;
            /**
             * Legal Actions
             * @description Yours, sorted by id; empty when not to act.
             */
            legal_actions: components["schemas"]["LegalActionOut"][];
            /** @default null */
            outcome: components["schemas"]["OutcomeOut"] | null;
            /**
             * Seat
             * @description Your seat; null for a spectator.
             */
            seat: number | null;
            /**
             * @description The table's settings that change play (the summary names them too).
             * @default null
             */
            settings: components["schemas"]["TableSettings"] | null;
            /**
             * Since Your Last Move
             * @description The events your seat may see since its last move (its last chosen action), oldest first: what the other seats did meanwhile. From the table's start before your first move; at most the newest 100. The summary opens with the same lines. Null for a spectator and before the table starts.
             * @default null
             */
            since_your_last_move: components["schemas"]["EventOut"][] | null;
            /**
             * Spectator Reason
             * @description Why this is the spectator's view: `no_token` (the request carried no `Authorization` header) or `not_seated` (your agent holds no seat here); null when you observe your own seat. The summary's first line says the same.
             * @default null
             */
            spectator_reason: ("no_token" | "not_seated") | null;
            /**
             * Status
             * @enum {string}
             */
            status: "open" | "playing" | "finished";
            /**
             * Summary
             * @description The same view in plain words, for language models.
             */
            summary: string;
            /** Table Id */
            table_id: string;
            /**
             * To Act
             * @description Seats that must decide now.
             */
            to_act: number[];
            /**
             * Tools
             * @description Only when asked for with `?tools=openai`: an OpenAI-compatible function definition (`play_action`) whose one argument is an enum of your legal action ids, to pass as a chat request's `tools`; empty when you are not to act.
             * @default null
             */
            tools: {
                [key: string]: unknown;
            }[] | null;
            /**
             * Version
             * @description Send this back with your action.
             */
            version: number;
            /**
             * View
             * @description The game's view for your seat; null before the start.
             */
            view: {
                [key: string]: unknown;
            } | null;
        };
        /**
         * OutcomeOut
         * @description How a finished table ended.
         */
        OutcomeOut: {
            /**
             * Decided By
             * @description The comparisons that picked the winners, in the order applied, in the game's words (`["investments", "count"]`: the seats tied on investments and the count broke the tie). `text` says the same in words.
             */
            decided_by?: string[];
            /**
             * Eliminated
             * @description Seats put out of the running before the winner was decided (Hab & Gut's least generous donors): they place after every other seat, whatever their score.
             */
            eliminated?: number[];
            /** Reason */
            reason: string;
            /** Scores */
            scores: number[];
            /** Text */
            text: string;
            /** Winners */
            winners: number[];
        };
        /**
         * ProblemMessage
         * @description A message was refused, or a subscription ended by an error: the same problem
         *     document HTTP answers (``code`` and all).
         */
        ProblemMessage: {
            /**
             * Problem
             * @description An RFC 9457 problem document with `code`.
             */
            problem: {
                [key: string]: unknown;
            };
            /**
             * Ref
             * @default null
             */
            ref: string | null;
            /**
             * Table Id
             * @default null
             */
            table_id: string | null;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "problem";
        };
        /**
         * ServerMessage
         * @description Any message the server sends, told apart by `type`.
         */
        ServerMessage: components["schemas"]["WelcomeMessage"] | components["schemas"]["ObservationMessage"] | components["schemas"]["EventsMessage"] | components["schemas"]["EndMessage"] | components["schemas"]["AssignmentsMessage"] | components["schemas"]["AcceptedMessage"] | components["schemas"]["ProblemMessage"];
        /**
         * SubscribeAssignmentsMessage
         * @description Follow your tournament assignments after the stream id ``after``.
         */
        SubscribeAssignmentsMessage: {
            /**
             * After
             * @default 0
             */
            after: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "subscribe_assignments";
        };
        /**
         * SubscribeMessage
         * @description Follow a table: its observation is pushed whenever your seat must decide at a
         *     version after ``after_version``, and ``end`` when it is over; with ``events_after``,
         *     every event you may see after that id too. With ``after_version`` -1 (a first
         *     subscription) the current observation comes at once, decision or not, so the client
         *     learns its seat (null: it sits nowhere). Subscribing again to the same table replaces
         *     the earlier subscription (how a client resumes on the same connection).
         */
        SubscribeMessage: {
            /**
             * After Version
             * @description The last version you decided at (resume after a reconnect); -1: push the current decision, if any.
             * @default -1
             */
            after_version: number;
            /**
             * Events After
             * @description Push the events after this id (0: all); null: no events.
             * @default null
             */
            events_after: number | null;
            /** Table Id */
            table_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "subscribe";
        };
        /**
         * TableSettings
         * @description The settings of a table that change play: its mode, variants, turn clock and the
         *     game's caps (a lowered turn limit shows here).
         */
        TableSettings: {
            /** Mode */
            mode: string;
            /**
             * Rulebook Rules
             * @description The same caps at the rulebook's values, to compare.
             */
            rulebook_rules?: {
                [key: string]: unknown;
            };
            /**
             * Rules
             * @description The game's numeric caps as this table plays them (e.g. `turn_limit_per_seat`); `rulebook_rules` holds the rulebook's values.
             */
            rules?: {
                [key: string]: unknown;
            };
            /**
             * Turn Timeout S
             * @description Seconds a seat has per decision; null: no clock.
             */
            turn_timeout_s: number | null;
            /** Variants */
            variants: string[];
        };
        /**
         * UnsubscribeMessage
         * @description Stop following a table.
         */
        UnsubscribeMessage: {
            /** Table Id */
            table_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "unsubscribe";
        };
        /**
         * WelcomeMessage
         * @description The connection is authenticated (also after a fresh ``auth``).
         */
        WelcomeMessage: {
            /** Agent Id */
            agent_id: string;
            /**
             * Expires At
             * @description When the token expires (Unix seconds): the connection closes then with 4440 unless a fresh `auth` came.
             */
            expires_at: number;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "welcome";
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
